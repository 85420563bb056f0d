import Foundation
import Testing

@testable import AppSandbox

/// The one name validator, directly and through the sandbox's callers (a relative path,
/// an app identifier). The blob store's keys and the defaults' domains are checked
/// with the same list in their own suites.
struct NameValidatorTests {
    /// Every character refused for rendering like `/` or `\`.
    static let lookAlikes = NameValidator.separatorLookAlikes.sorted { $0.value < $1.value }.map(String.init)

    @Test(arguments: lookAlikes)
    func separatorLookAlikesAreRefused(lookAlike: String) {
        #expect(NameValidator.problem(in: "a\(lookAlike)b") == .separatorLookAlike)
    }

    @Test(arguments: [
        ("", NameValidator.Problem.empty),
        (".", .currentDirectory),
        ("..", .parentDirectory),
        ("a/b", .separator),
        ("x\u{0}y", .controlCharacter),
        ("tab\there", .controlCharacter),
        ("line\nbreak", .controlCharacter),
        ("delete\u{7F}", .controlCharacter),
        ("next-line\u{85}", .controlCharacter),
        (String(repeating: "k", count: 256), .tooLong),
        (String(repeating: "é", count: 128), .tooLong),
        ("...", .dotLookAlike),
        ("\u{2025}", .dotLookAlike),
        (".\u{FF0E}", .dotLookAlike),
    ])
    func badNamesAreRefusedWithTheirReason(name: String, problem: NameValidator.Problem) {
        #expect(NameValidator.problem(in: name) == problem, "\(name.debugDescription)")
    }

    @Test(arguments: ["photo-1", ".hidden", "a..b", "com.example.App", "Café ☕️", String(repeating: "k", count: 255)])
    func plainNamesPass(name: String) {
        #expect(NameValidator.problem(in: name) == nil, "\(name.debugDescription) is an ordinary file name")
    }

    @Test(arguments: lookAlikes)
    func relativePathComponentsAreChecked(lookAlike: String) throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.names")
        defer { try? container.destroy() }
        let documents = container.directory(.documents)
        for path in ["a\(lookAlike)b", "folder/a\(lookAlike)b", "a\(lookAlike)b/file"] {
            let error = #expect(throws: SandboxError.self, "\(path)") { try documents.write(Data("x".utf8), to: path) }
            #expect(error?.code == .invalidName)
        }
    }

    @Test func parentReferenceInAPathLeavesTheContainer() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.names")
        defer { try? container.destroy() }
        let error = #expect(throws: SandboxError.self) {
            try container.directory(.documents).write(Data(), to: "a/../../b")
        }
        #expect(error?.code == .outsideContainer)
    }

    @Test(arguments: lookAlikes)
    func appIdentifiersAreChecked(lookAlike: String) {
        let error = #expect(throws: SandboxError.self) {
            try AppContainer.temporary(identifier: "com.example\(lookAlike)App")
        }
        #expect(error?.code == .invalidName)
    }
}
