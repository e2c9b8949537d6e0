/// Where the relay writes to one connection: a TCP channel, an in-memory pipe, or a test's
/// recorder. The runtime's one outlet policy (bounded bytes, slow readers closed) sits
/// above it, so every transport behaves the same.
public protocol RelayOutlet: Sendable {
  /// Queues one encoded line (ending in `\n`) behind the ones before it and returns how
  /// many bytes are now queued and not yet taken by the peer.
  func write(_ line: [UInt8]) -> Int
  /// Closes the connection: after writing what is queued (`flush`), or at once.
  func close(flush: Bool)
}
