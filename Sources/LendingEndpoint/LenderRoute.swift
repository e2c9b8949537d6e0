import NIOCore

/// A way to a lender other than its address: a tunnel through the room's relay, for a
/// borrower that cannot reach the lender directly. Each ``connect`` opens a fresh byte
/// stream (a new ticket); TLS with the lender, pinned to its certificate, runs inside it as
/// it would over a direct connection, so the relay carries only ciphertext.
public struct LenderRoute: Sendable {
  /// An open stream: its channel, and what lets its first bytes through once the reader's
  /// handlers are added at the end of its pipeline.
  public struct Opened: Sendable {
    public let channel: any Channel
    public let release: @Sendable () -> Void
    public init(channel: any Channel, release: @escaping @Sendable () -> Void) {
      self.channel = channel
      self.release = release
    }
  }

  /// Says which way it goes, for messages ("through the relay").
  public let description: String
  public let connect: @Sendable () async throws -> Opened

  public init(description: String, connect: @escaping @Sendable () async throws -> Opened) {
    self.description = description
    self.connect = connect
  }
}
