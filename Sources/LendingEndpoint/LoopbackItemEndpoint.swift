import Lending
import NIOCore

/// One item served over HTTP on this machine's loopback, for this machine's own player:
/// mpv reads a lent item from here as from any link, and seeks by asking for byte ranges,
/// which the endpoint reads from its source (a borrower's is the lender's copy).
///
/// Only the item is served, at an address nobody else can guess (`/TOKEN/NAME`, the token
/// 128 bits from the system's CSPRNG: another user of this machine reaches the port, not
/// the item), with GET and HEAD only; at most ``maximumConnections`` at once (a player
/// opens one or two); each body is read and written a chunk at a time, as the player takes
/// it, so a player that stops reading holds one chunk, not the file.
public final class LoopbackItemEndpoint: Sendable {
  public typealias Counts = ServedCounts

  /// Where the player reads the item.
  public let url: String
  public var port: Int { server.port }
  private let server: ItemHTTPServer

  public static let maximumConnections = 8
  /// The most read from the source and written at once.
  public static var chunk: Int { ItemHTTPServer.chunk }

  public var counts: Counts { server.counts }
  /// Connections open now.
  public var connectionCount: Int { server.connectionCount }

  private init(url: String, server: ItemHTTPServer) {
    self.url = url
    self.server = server
  }

  /// Serves `source` as `name` (what the player shows as the file's name) on 127.0.0.1, at
  /// a port of its own.
  public static func start(serving source: any ItemSource, as name: String) async throws
    -> LoopbackItemEndpoint
  {
    var random = SystemRandomNumberGenerator()
    let token = (0..<2).map { _ in String(random.next(), radix: 16) }.joined(separator: "")
    let path = "/\(token)/\(LendingBook.pathName(name))"
    // This machine's own player, paused for as long as the evening's break lasts, holds its
    // connection with a part unread: it is let go only after hours.
    let server = try await ItemHTTPServer.start(
      host: "127.0.0.1", port: 0, tls: nil, maximumConnections: maximumConnections,
      patience: .hours(6)
    ) { requested in
      // Compared in time that does not depend on where it differs: the token is a secret.
      LendingBook.sameBytes(requested, path) ? source : nil
    }
    return LoopbackItemEndpoint(url: "http://127.0.0.1:\(server.port)\(path)", server: server)
  }

  /// Stops listening and closes every connection (cancelled, each closes, a player's
  /// half-sent request or not).
  public func stop() async { await server.stop() }
}
