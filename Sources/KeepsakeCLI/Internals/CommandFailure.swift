/// A command that ran as asked and found it could not do it: printed as
/// `Error: <message>`, exit status 1. (A `ValidationError` is for a wrong command line
/// and exits with 64.)
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
