/// One use of a Foundation API that compiles on Linux but bypasses Keepsake.
public struct PortFinding: Sendable, Hashable, CustomStringConvertible {
    /// The file, as it was named to the checker.
    public var file: String
    /// Line and column of the use, from 1.
    public var line: Int
    public var column: Int
    /// The API as the code spells it, e.g. `UserDefaults.standard`.
    public var api: String
    /// What it does wrong on Linux and what to use instead.
    public var advice: String

    public init(file: String, line: Int, column: Int, api: String, advice: String) {
        self.file = file
        self.line = line
        self.column = column
        self.api = api
        self.advice = advice
    }

    /// The compiler's diagnostic format, which editors and CI logs link to the source:
    /// `file:line:column: warning: …`.
    public var description: String { "\(file):\(line):\(column): warning: \(api) \(advice)" }
}
