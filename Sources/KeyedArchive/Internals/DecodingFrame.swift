/// The object whose `init(coder:)` is running (or `$top`).
struct DecodingFrame {
    var fields: InstanceFields
    var uid: Int?
    var archivedClass: ArchivedClass?
    var cursor: Int

    init(fields: InstanceFields, uid: Int?, archivedClass: ArchivedClass?) {
        self.fields = fields
        self.uid = uid
        self.archivedClass = archivedClass
        // Objects usually start with $class; $top has none.
        cursor = uid == nil ? 0 : 1
    }
}
