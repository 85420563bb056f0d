#if !canImport(os)
import Foundation

/// Where `os_log` messages go. Apple's unified log does not exist off Apple platforms;
/// here a log names its subsystem and category, and its messages go to standard error.
///
/// Corresponds to `OSLog` of `os.log`, so code written for it ports unchanged:
///
/// ```swift
/// os_log("Meals successfully saved.", log: OSLog.default, type: .debug)
/// // standard error: [debug] Meals successfully saved.
/// ```
public struct OSLog: Sendable {
    public let subsystem: String
    public let category: String

    public init(subsystem: String, category: String) {
        self.subsystem = subsystem
        self.category = category
    }

    /// The log `os_log` uses when it is given none.
    public static let `default` = OSLog(subsystem: "", category: "")
}

/// A message's level. Corresponds to `OSLogType` of `os.log`.
public struct OSLogType: Sendable, Hashable {
    /// How the level is printed: `default`, `info`, `debug`, `error`, `fault`.
    public let name: String

    public static let `default` = OSLogType(name: "default")
    public static let info = OSLogType(name: "info")
    public static let debug = OSLogType(name: "debug")
    public static let error = OSLogType(name: "error")
    public static let fault = OSLogType(name: "fault")
}

/// Writes `message`, a `printf`-style format with `arguments` (`%@`, `%d`, and
/// `%{public}@` or `%{private}@`, which print the value either way), as one line on
/// standard error: `[debug] message`, or `[debug] subsystem/category: message` for a
/// log that names them. Corresponds to `os_log(_:log:type:_:)`.
public func os_log(_ message: StaticString, log: OSLog = .default, type: OSLogType = .default, _ arguments: CVarArg...)
{
    var format = message.description
    for modifier in ["{public}", "{private}"] { format = format.replacingOccurrences(of: "%" + modifier, with: "%") }
    // Without arguments the format is not handed to String(format:), whose
    // conversions would read arguments that are not there; only `%%` means anything.
    let text =
        arguments.isEmpty
        ? format.replacingOccurrences(of: "%%", with: "%") : String(format: format, arguments: arguments)
    let origin = log.subsystem.isEmpty && log.category.isEmpty ? "" : "\(log.subsystem)/\(log.category): "
    StandardStream.error.report("[\(type.name)] \(origin)\(text)")
}
#endif
