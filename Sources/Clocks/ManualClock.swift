import Synchronization

/// A clock that moves only when told to, for deterministic tests: sleepers wake, in
/// deadline order, when ``advance(bySeconds:)`` passes their deadline.
///
/// It also tells a driver of virtual time what it needs to wait for before moving the
/// clock again: the sleepers it woke that have not run yet (``wakingCount``), the next
/// deadline anyone sleeps until (``nextDeadline``), and how many sleeps ever began
/// (``sleepCount``, which changes whenever a task comes back to wait for time).
public final class ManualClock: SessionClock {
  private struct Sleeper {
    var id: UInt64
    var deadline: Int64
    var continuation: CheckedContinuation<Void, Never>
  }
  private struct State {
    var now: Int64
    var nextID: UInt64 = 0
    var sleepers: [Sleeper] = []
    /// Woken by ``advance(toNanoseconds:)``, their `sleep` not returned yet.
    var waking: Set<UInt64> = []
  }
  private let state: Mutex<State>
  /// The executor of the system this clock drives on virtual time, if it is one
  /// (``VirtualTime`` needs it): its runtimes start their tasks there.
  public let simulation: SimulationExecutor?

  public init(nanoseconds: Int64 = 1_000_000_000_000, simulation: SimulationExecutor? = nil) {
    state = Mutex(State(now: nanoseconds))
    self.simulation = simulation
  }

  public var taskExecutor: (any TaskExecutor)? { simulation }

  public func nanoseconds() -> Int64 { state.withLock { $0.now } }

  /// The earliest deadline a task sleeps until, if any.
  public var nextDeadline: Int64? { state.withLock { $0.sleepers.lazy.map(\.deadline).min() } }

  /// Sleepers woken by the last advances whose tasks have not yet run past their `sleep`.
  public var wakingCount: Int { state.withLock { $0.waking.count } }

  /// How many sleeps began since the clock was made.
  public var sleepCount: UInt64 { state.withLock { $0.nextID } }

  public func sleep(untilNanoseconds deadline: Int64) async {
    let id = state.withLock { s in
      s.nextID += 1
      return s.nextID
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow = state.withLock { s in
          if deadline <= s.now || Task.isCancelled { return true }
          s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      let sleeper = state.withLock { s -> Sleeper? in
        guard let i = s.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
        return s.sleepers.remove(at: i)
      }
      sleeper?.continuation.resume()
    }
    _ = state.withLock { $0.waking.remove(id) }
  }

  /// Moves the clock forward and wakes everyone whose deadline has come.
  public func advance(bySeconds seconds: Double) {
    advance(toNanoseconds: nanoseconds() + Int64(seconds * 1e9))
  }

  public func advance(toNanoseconds target: Int64) {
    let due = state.withLock { s -> [Sleeper] in
      s.now = max(s.now, target)
      let now = s.now
      let due = s.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
      s.sleepers.removeAll { $0.deadline <= now }
      for sleeper in due { s.waking.insert(sleeper.id) }
      return due
    }
    for sleeper in due { sleeper.continuation.resume() }
  }
}
