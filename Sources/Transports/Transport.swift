import WireProtocol

/// How a participant reaches a relay. The in-memory transport and the TCP one implement
/// it, so that the same session tests run on both.
public protocol Transport: Sendable {
  /// Opens a new connection. Throws when the relay cannot be reached.
  func connect() async throws(TransportError) -> any TransportConnection
  /// Opens a connection to another relay of the same database, as a `redirect` or a
  /// welcome named it (nil: the usual one). Transports that know only one relay (the
  /// in-memory one) connect there.
  func connect(to relay: RelayEndpoint?) async throws(TransportError) -> any TransportConnection
  /// Where it connects, for messages ("127.0.0.1:7700").
  var endpointDescription: String { get }
}

extension Transport {
  public func connect(to relay: RelayEndpoint?) async throws(TransportError)
    -> any TransportConnection
  {
    try await connect()
  }
}

/// One open connection to a relay.
public protocol TransportConnection: Sendable {
  /// What the relay sends, in order; finishes when the connection closes (with the error
  /// if bytes could not be decoded).
  var inbound: AsyncThrowingStream<ServerMessage, any Error> { get }
  /// Queues a message behind those queued before it and returns at once.
  ///
  /// Synchronous on purpose: the order of calls is the order on the wire, so a caller
  /// that assigns ids in order never sees them overtake each other. Throws if the
  /// connection is closed.
  func send(_ message: ClientMessage) throws(TransportError)
  /// Sends what is queued, then closes.
  func close() async
  /// The fingerprint of the certificate the relay presented and the transport checked;
  /// nil over plain TCP and in memory. A resume proves itself to this relay only.
  /// (Required, not defaulted: a wrapper that forgot to pass it on would make every
  /// resume through it fail.)
  var relayFingerprint: String? { get }
}

public enum TransportError: Error, Hashable, Sendable, CustomStringConvertible {
  case unreachable(endpoint: String, reason: String)
  /// Nothing listens at the address (the connection was refused): no relay runs there now.
  case refused(endpoint: String)
  case badAddress(String)
  case closed
  /// The relay's certificate was refused (pinned or remembered fingerprint differs, or the
  /// person did not trust it): trying again cannot help.
  case untrusted(String)

  public var description: String {
    switch self {
    case .unreachable(let endpoint, let reason): "cannot reach the relay at \(endpoint): \(reason)"
    case .refused(let endpoint):
      "cannot reach the relay at \(endpoint): connection refused (is a relay running there?)"
    case .badAddress(let address): "bad relay address \"\(address)\" (expected HOST[:PORT])"
    case .closed: "the connection to the relay is closed"
    case .untrusted(let why): why
    }
  }
}
