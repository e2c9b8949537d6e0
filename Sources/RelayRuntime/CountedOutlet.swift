import Synchronization

/// Lines that crossed a set of connections, as counted by one side.
public struct LineTraffic: Sendable, Hashable, CustomStringConvertible {
  public var connections = 0
  /// Lines that came in (for the relay: from participants).
  public var received = 0
  /// Lines that went out.
  public var written = 0

  public init(connections: Int = 0, received: Int = 0, written: Int = 0) {
    self.connections = connections
    self.received = received
    self.written = written
  }

  public var description: String {
    "\(connections) connections, \(received) lines in, \(written) out"
  }
}

/// An outlet that counts the lines written to it and those its connection brought in
/// (see ``RelayRuntime/openTraffic``).
final class CountedOutlet: RelayOutlet {
  let base: any RelayOutlet
  private let counts = Atomic<Int>(0)
  private let incoming = Atomic<Int>(0)

  init(_ base: any RelayOutlet) { self.base = base }

  func write(_ line: [UInt8]) -> Int {
    counts.add(1, ordering: .relaxed)
    return base.write(line)
  }

  func close(flush: Bool) { base.close(flush: flush) }

  func countReceived() { incoming.add(1, ordering: .relaxed) }

  var written: Int { counts.load(ordering: .relaxed) }
  var received: Int { incoming.load(ordering: .relaxed) }
}
