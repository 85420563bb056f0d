import Testing

@testable import AppLifecycle

@Suite @MainActor struct TerminalFocusTests {
    @Test func reportsAreFoundAmongOtherInput() {
        var parser = TerminalFocusParser()
        let input = Array("ab\u{1B}[Ocd\u{1B}[I\u{1B}[A".utf8)
        #expect(parser.feed(input) == [.focusLost, .focusGained], "arrow keys and text are not focus reports")
    }

    @Test func reportSplitAcrossReads() {
        var parser = TerminalFocusParser()
        #expect(parser.feed([0x1B]) == [])
        #expect(parser.feed(Array("[".utf8)) == [])
        #expect(parser.feed(Array("O".utf8)) == [.focusLost])
    }

    @Test func focusReportsMoveTheApp() {
        let harness = Harness().launched()
        var parser = TerminalFocusParser()
        for trigger in parser.feed(Array("\u{1B}[O".utf8)) { harness.app.send(trigger) }
        #expect(harness.app.state == .inactive)
        for trigger in parser.feed(Array("\u{1B}[I".utf8)) { harness.app.send(trigger) }
        #expect(harness.delegate.calls == ["willResignActive", "didBecomeActive"])
    }

    @Test func withoutATerminalTheSourceReturns() async throws {
        // Under `swift test` standard input is not a terminal.
        let harness = Harness().launched()
        try await TerminalFocusEventSource().run(for: harness.app)
        #expect(harness.app.state == .active)
    }
}
