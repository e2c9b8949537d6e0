import Synchronization

/// The bytes all of a server's connections hold in lines not finished yet, bounded in all:
/// each connection's own limit is a frame, but thousands of connections each holding most
/// of one would hold thousands of frames. Past the budget, the connection whose unfinished
/// line made it overflow is refused (a whole line costs nothing to hold).
public final class PartialLineBudget: Sendable {
  public let limit: Int
  private let held = Atomic<Int>(0)

  public init(limit: Int) { self.limit = limit }

  /// Bytes held now, by all connections.
  public var bytesHeld: Int { held.load(ordering: .relaxed) }

  /// Moves this connection's share by `delta`; whether the total is within the budget.
  func change(by delta: Int) -> Bool {
    guard delta != 0 else { return held.load(ordering: .relaxed) <= limit }
    return held.wrappingAdd(delta, ordering: .relaxed).newValue <= limit
  }
}
