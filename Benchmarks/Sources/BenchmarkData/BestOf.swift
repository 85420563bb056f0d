/// The fastest of `runs` runs of `body`, in milliseconds: what the plain (harness-free)
/// benchmark programs report.
public func bestOf(_ runs: Int, _ body: () throws -> Void) rethrows -> Double {
    var fastest = Duration.seconds(3600)
    for _ in 0..<runs {
        let start = ContinuousClock.now
        try body()
        fastest = min(fastest, ContinuousClock.now - start)
    }
    return Double(fastest.components.seconds) * 1000 + Double(fastest.components.attoseconds) / 1e15
}
