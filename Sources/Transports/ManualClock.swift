import Synchronization

/// A clock that moves only when told to, for deterministic tests: sleepers wake, in
/// deadline order, when ``advance(bySeconds:)`` passes their deadline.
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
  }
  private let state: Mutex<State>

  public init(nanoseconds: Int64 = 1_000_000_000_000) {
    state = Mutex(State(now: nanoseconds))
  }

  public func nanoseconds() -> Int64 { state.withLock { $0.now } }

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
      return due
    }
    for sleeper in due { sleeper.continuation.resume() }
  }
}
