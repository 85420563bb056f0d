import Locking

/// Which pages of a document read on demand are in memory, and the reading of the
/// others: each page is read once, whole, the first time a range needs it.
// @unchecked: `room` is written only in `load`, under the lock that records which pages
// are read; a reader reads a page only after `load` has returned for it.
final class DocumentPages: @unchecked Sendable {
    /// The memory page: reading less than a page at a time saves no memory.
    static let defaultPageSize = 4096

    private let source: any RandomAccessBytes
    private let room: UnsafeMutableRawBufferPointer
    private let pageSize: Int
    /// One bit a page, set once the page has been read.
    private let read: Locked<BitSet>

    /// - Parameter pageSize: the unit of reading; tests make it small, so that a read
    ///   of bytes nobody loaded meets unread memory rather than a neighbour's page.
    init(source: any RandomAccessBytes, room: UnsafeMutableRawBufferPointer, pageSize: Int) {
        precondition(pageSize > 0, "page size \(pageSize)")
        self.source = source
        self.room = room
        self.pageSize = pageSize
        let pageCount = (room.count + pageSize - 1) / pageSize
        read = Locked(BitSet(count: pageCount))
    }

    /// Reads the pages of `range` not read yet, each run of them in one call.
    func load(_ range: Range<Int>) throws(PropertyListError) {
        precondition(range.lowerBound >= 0 && range.upperBound <= room.count, "range \(range) outside the document")
        let pages = range.lowerBound / pageSize...(range.upperBound - 1) / pageSize
        try read.withLock { (read) throws(PropertyListError) in
            var page = pages.lowerBound
            while page <= pages.upperBound {
                guard !read.contains(page) else {
                    page += 1
                    continue
                }
                var end = page + 1
                while end <= pages.upperBound, !read.contains(end) { end += 1 }
                try fill(pages: page..<end)
                for each in page..<end { read.insert(each) }
                page = end
            }
        }
    }

    private func fill(pages: Range<Int>) throws(PropertyListError) {
        let start = pages.lowerBound * pageSize
        let end = min(pages.upperBound * pageSize, room.count)
        do {
            try source.read(into: UnsafeMutableRawBufferPointer(rebasing: room[start..<end]), at: start)
        } catch {
            throw PropertyListError(.readFailed, "bytes \(start)–\(end) could not be read: \(error)", offset: start)
        }
    }
}
