/// Turns at the one test database, for tests in different targets of a package.
///
/// `swift test` runs every target's suites in one process, and `.serialized` orders only
/// the tests of its own suite. A test that takes the database away (pauses, freezes or
/// crashes it) and a test of another target that needs it up must not overlap: the second
/// would fail for a reason not its own. Each takes a turn here for as long as it needs
/// the database as it left it; turns are given in the order they were asked for.
public actor TestDatabaseTurns {
    private static let shared = TestDatabaseTurns()
    private var taken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// `body` during a turn of its own, given back whether `body` threw or not.
    public static func during(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Void)
        async throws
    {
        await shared.take()
        let outcome: Result<Void, any Error>
        do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
        await shared.giveBack()
        try outcome.get()
    }

    private func take() async {
        guard taken else {
            taken = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Passes the turn to the first waiting, or leaves it free.
    private func giveBack() {
        if waiting.isEmpty { taken = false } else { waiting.removeFirst().resume() }
    }
}
