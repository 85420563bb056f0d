import PropertyList
import Testing

extension ErrorCode<KeepsakeErrorTests.OtherLayerError> {
    static func ~= (code: Self, error: any Error) -> Bool { code.matches(error) }

    static let limitExceeded = Self("limitExceeded")
}

/// The one error shape every layer declares its error with.
struct KeepsakeErrorTests {
    /// Another layer's error, declared as every layer declares its own.
    struct OtherLayerError: KeepsakeError {
        typealias Code = ErrorCode<OtherLayerError>
        var code: Code
        var message: String
        var context: [String]
        var underlyingError: (any Error)?
    }

    @Test("The description is code, message, context and the error underneath, in that order")
    func descriptionShape() {
        let underneath = PropertyListError(.truncated, "ends early", offset: 12)
        let error = OtherLayerError(
            code: .limitExceeded, message: "too deep", context: ["at items[3]", "UID 7"], underlyingError: underneath)
        #expect("\(error)" == "limitExceeded: too deep (at items[3]; UID 7): truncated: ends early (offset 12)")
        #expect(
            "\(OtherLayerError(code: .limitExceeded, message: "too deep", context: []))" == "limitExceeded: too deep")
    }

    @Test("A code matches its own layer's error only, though another layer has a code of the same name")
    func codesMatchTheirOwnErrorOnly() {
        func caught(_ error: any Error) -> String {
            do { throw error } catch PropertyListError.Code.limitExceeded {
                return "property list"
            } catch OtherLayerError.Code.limitExceeded {
                return "other layer"
            } catch {
                return "neither"
            }
        }
        #expect(caught(PropertyListError(.limitExceeded, "deep")) == "property list")
        #expect(caught(OtherLayerError(code: .limitExceeded, message: "deep", context: [])) == "other layer")
        #expect(caught(PropertyListError(.truncated, "short")) == "neither")
    }
}
