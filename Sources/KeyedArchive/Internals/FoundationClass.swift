/// Foundation's value classes, which decode into Swift values.
enum FoundationClass: Int, CaseIterable {
    case string, array, set, dictionary, date, data, uuid, url

    init?(className: String) {
        switch className {
        case "NSString", "NSMutableString": self = .string
        case "NSArray", "NSMutableArray": self = .array
        case "NSSet", "NSMutableSet": self = .set
        case "NSDictionary", "NSMutableDictionary": self = .dictionary
        case "NSDate": self = .date
        case "NSData", "NSMutableData": self = .data
        case "NSUUID": self = .uuid
        case "NSURL": self = .url
        default: return nil
        }
    }

    /// Foundation's collection classes, which the collection decode calls do not nest.
    static let collectionNames: Set<String> = [
        "NSArray", "NSMutableArray", "NSDictionary", "NSMutableDictionary", "NSSet", "NSMutableSet",
    ]

    /// The class a typed request for this kind accepts, with its subclasses.
    var baseClassName: String {
        switch self {
        case .string: "NSString"
        case .array: "NSArray"
        case .set: "NSSet"
        case .dictionary: "NSDictionary"
        case .date: "NSDate"
        case .data: "NSData"
        case .uuid: "NSUUID"
        case .url: "NSURL"
        }
    }
}
