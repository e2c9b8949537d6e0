import WireProtocol

/// What a relay has done since it started, and holds now: what its metrics endpoint
/// exposes (`cowatch serve --metrics`). Counted under the lock the relay takes anyway for
/// every message, so that counting costs an addition, not a lock of its own.
public struct RelayStatistics: Sendable, Hashable {
  public var rooms = 0
  /// Members in the rooms (connected or keeping their place), and those connected.
  public var members = 0
  public var connectedMembers = 0
  public var connections = 0
  /// Steps sent out (one per change to a room, however many receive it).
  public var steps = 0
  /// Messenger payloads delivered (one per recipient).
  public var messages = 0
  /// Errors sent to participants, by code (a refused hello, a rate limit, a bad frame…).
  public var refusals: [ErrorCode: Int] = [:]
  /// TLS handshakes that failed (a wrong client, a scanner, an old TLS version).
  public var tlsHandshakeFailures = 0
  /// Store writes: batches written, failed writes, time spent writing in all and the
  /// longest write (nanoseconds).
  public var storeWrites = 0
  public var storeWriteFailures = 0
  public var storeWriteNanoseconds: Int64 = 0
  public var longestStoreWrite: Int64 = 0
  /// Whether changes wait to be written, or a write is under way: 0 means that what the
  /// relay has applied is in the store (a crash now would lose nothing).
  public var storeUnwritten = false
  /// Tunnels for lent copies: spliced now, bytes carried, asked for and refused.
  public var openTunnels = 0
  public var tunnelBytes: Int64 = 0
  public var tunnelsRefused = 0

  public init() {}
}
