/// One page of the item list: a server never renders more than a page, whatever the
/// inventory's size.
package struct ItemPage: Sendable {
    /// The items shown, in list order.
    package var items: [Item]
    /// The list position of the first item shown.
    package var offset: Int
    /// The page's number, from 1.
    package var number: Int
    package var pageCount: Int
    /// How many items the whole list holds, and their total value.
    package var totalCount: Int
    package var totalValue: Int

    /// Page `number` (clamped to the pages there are) of `items`, `size` to a page.
    package init(_ items: [Item], number: Int, size: Int) {
        precondition(size > 0, "a page holds at least one item")
        totalCount = items.count
        totalValue = items.reduce(0) { $0 &+ $1.valueInDollars }
        pageCount = max(1, (items.count + size - 1) / size)
        self.number = min(max(number, 1), pageCount)
        offset = (self.number - 1) * size
        self.items = Array(items[offset..<min(offset + size, items.count)])
    }
}
