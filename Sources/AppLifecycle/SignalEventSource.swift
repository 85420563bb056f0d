import Dispatch
import UnixSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns the job-control and termination signals a Linux process receives into
/// lifecycle triggers.
///
/// | Signal | Trigger | Callbacks |
/// |---|---|---|
/// | `SIGTERM`, `SIGINT` | ``LifecycleTrigger/terminate`` | will resign active, did enter background, will terminate; then ``Application/run(sources:)`` returns |
/// | `SIGHUP` | ``LifecycleTrigger/hidden`` | will resign active, did enter background (the terminal went away) |
/// | `SIGTSTP` (Ctrl-Z) | ``LifecycleTrigger/hidden``, then stop | will resign active, did enter background; once no background task is open the app is suspended and the process really stops (`SIGSTOP` to itself) |
/// | `SIGCONT` (`fg`, `bg`) | ``LifecycleTrigger/visible`` | will enter foreground, did become active |
///
/// `SIGKILL` and `SIGSTOP` cannot be caught: the process gets no callback, exactly as
/// an iOS app killed while suspended gets none. Whatever was not saved by then is lost,
/// which is why apps save in ``ApplicationDelegate/applicationDidEnterBackground(_:)``.
///
/// The callbacks run on the main actor, as every lifecycle callback does: a program
/// that blocks its main thread (a `readLine()` loop, a semaphore wait) keeps these
/// signals waiting, Ctrl-C and `SIGTERM` included, since their default action is off
/// while this source runs. Read blocking input on a thread of its own.
///
/// Signals are received through swift-service-lifecycle's `UnixSignalsSequence`
/// (a dispatch signal source per signal); `SIGTSTP`, which that sequence does not
/// offer, gets a dispatch source of its own the same way. Only one handler per signal
/// works in a process: do not run this source next to another that traps the same
/// signals (a `ServiceGroup` with graceful-shutdown signals, say).
public struct SignalEventSource: LifecycleEventSource {
    /// Whether `SIGTSTP` stops the process after entering the background (the shell's
    /// Ctrl-Z) or only enters the background.
    public var stopsOnTerminalStop: Bool
    /// Runs when `SIGTERM` or `SIGINT` arrives, before the app terminates: a server
    /// stops accepting requests and finishes the ones in flight here, so that the save
    /// in ``ApplicationDelegate/applicationWillTerminate(_:)`` holds everything it
    /// acknowledged.
    public var beforeTerminating: (@Sendable () async -> Void)?

    public init(stopsOnTerminalStop: Bool = true, beforeTerminating: (@Sendable () async -> Void)? = nil) {
        self.stopsOnTerminalStop = stopsOnTerminalStop
        self.beforeTerminating = beforeTerminating
    }

    public func run(for application: Application) async throws {
        try await run(for: application, whenReady: {})
    }

    public func run(for application: Application, whenReady ready: @escaping @Sendable () -> Void) async throws {
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint, .sighup, .sigcont)
        let terminalStop = TerminalStopSource(stops: stopsOnTerminalStop, application: application)
        defer { terminalStop.cancel() }
        ready()
        for await signal in signals {
            switch signal {
            case .sigterm, .sigint:
                await beforeTerminating?()
                await application.send(.terminate)
            case .sighup: await application.send(.hidden)
            case .sigcont: await application.send(.visible)
            default: break
            }
        }
    }
}

/// A dispatch signal source for `SIGTSTP`, set up like `UnixSignalsSequence`'s. It
/// needs no queue of its own: its handler only hands each stop to the main actor.
/// `@unchecked Sendable`: the dispatch source is thread-safe (only `cancel()` is
/// called after set-up) but not marked `Sendable` by Dispatch.
private final class TerminalStopSource: @unchecked Sendable {
    private let source: any DispatchSourceSignal

    init(stops: Bool, application: Application) {
        #if canImport(Darwin)
        // kqueue delivers only signals whose default action is off.
        signal(SIGTSTP, SIG_IGN)
        #endif
        source = DispatchSource.makeSignalSource(signal: SIGTSTP)
        source.setEventHandler { [weak application] in
            guard let application else { return }
            // The stop comes after the callbacks, once the main actor has run them.
            Task { @MainActor in
                if stops {
                    application.sendHidden(thenStop: { stopProcess() })
                } else {
                    application.send(.hidden)
                }
            }
        }
        source.resume()
    }

    func cancel() { source.cancel() }
}

/// Stops the whole process until `SIGCONT`, as the default action of `SIGTSTP` would.
/// `SIGSTOP` cannot be caught or blocked, so it works whatever handlers are installed.
private func stopProcess() {
    _ = kill(getpid(), SIGSTOP)
}
