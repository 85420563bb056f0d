public import Dispatch

/// The default scheduler: a Dispatch queue's timer.
public struct DispatchDefaultsScheduler: DefaultsScheduler {
    private let queue: DispatchQueue

    public init(queue: DispatchQueue = DispatchQueue(label: "org.keepsake.defaults", qos: .utility)) {
        self.queue = queue
    }

    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        let (seconds, attoseconds) = delay.components
        let nanoseconds = max(0, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: work)
    }
}
