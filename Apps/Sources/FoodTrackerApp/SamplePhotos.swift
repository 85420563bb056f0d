import Foundation

/// Small solid-colour PNGs standing in for the lesson's sample photos (meal1–meal3).
enum SamplePhotos {
    static let meal1 = Data(
        base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAIAAAD8GO2jAAAAKklEQVR42mM4oaFBU8QwasGoBaMWjFowasGoBaMWjFowasGoBaMWDBULABo2YD0ttAhSAAAAAElFTkSuQmCC"
    )!
    static let meal2 = Data(
        base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAIAAAD8GO2jAAAAKklEQVR42u3NQQkAAAgEsItjdoOZwxQ+hMH+y3SdikAgEAgEAoFAIPgSLHWd4Ft8OJx9AAAAAElFTkSuQmCC"
    )!
    static let meal3 = Data(
        base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAIAAAD8GO2jAAAAKklEQVR42mOosJGjKWIYtWDUglELRi0YtWDUglELRi0YtWDUglELhooFAB6pSC7SGj+hAAAAAElFTkSuQmCC"
    )!
}
