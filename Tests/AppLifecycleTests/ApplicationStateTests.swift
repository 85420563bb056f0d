import Testing

@testable import AppLifecycle

@Suite struct ApplicationStateTests {
    /// The moves iOS makes; everything else must be refused.
    static let legal: Set<[ApplicationState]> = [
        [.notRunning, .inactive], [.inactive, .active], [.active, .inactive],
        [.inactive, .background], [.background, .inactive], [.background, .suspended],
        [.suspended, .background], [.background, .notRunning], [.suspended, .notRunning],
    ]

    @Test(arguments: ApplicationState.allCases)
    func onlyTheLegalMovesAreAccepted(from: ApplicationState) throws {
        for to in ApplicationState.allCases {
            if Self.legal.contains([from, to]) {
                #expect(try from.moved(to: to) == to)
            } else {
                // A move iOS never makes (active → background without inactive, say) must throw.
                let error = #expect(throws: LifecycleError.self) { try from.moved(to: to) }
                #expect(error?.code == .illegalTransition, "\(from) → \(to)")
            }
        }
    }

    @Test func foregroundStates() {
        #expect(ApplicationState.allCases.filter(\.isForeground) == [.inactive, .active])
    }
}
