import Lending
import NIOCore
import NIOSSL
import Synchronization

/// A lender's items, served over TLS (the member's own certificate, the one the room
/// already knows it by) to the members it granted them to: each borrower reads through a
/// grant of its own (``LendingBook``), one item, at a path with a secret in it, for as long
/// as it is a member and the lender lends; taken back, a read under way ends at its next
/// chunk.
public final class LenderEndpoint: Sendable {
  public var port: Int { server.port }
  private let server: ItemHTTPServer
  private let shelf: Shelf

  /// The book and the copies its grants read, shared with the server's lookup.
  final class Shelf: Sendable {
    /// The sources by grant token: the item's, and its subtitle files' (by place).
    let state: Mutex<(book: LendingBook, sources: [String: any ItemSource])>
    init(lends: Bool) { state = Mutex((LendingBook(lends: lends), [:])) }
    static func subtitleKey(_ token: String, _ index: Int) -> String { token + "/sub/\(index)" }
  }

  /// Borrowers open a connection or two each (a player's read-ahead and a seek).
  public static let maximumConnections = 32

  public var counts: ServedCounts { server.counts }
  public var connectionCount: Int { server.connectionCount }
  /// Whether this member lends now.
  public var lends: Bool { shelf.state.withLock { $0.book.lends } }
  /// Every grant given and not taken back.
  public var grants: [LendingBook.Grant] { shelf.state.withLock { $0.book.all } }
  /// Who reads which item (the group's id) from this member now.
  public var borrowers: [String: [String]] { shelf.state.withLock { $0.book.borrowers } }

  private init(server: ItemHTTPServer, shelf: Shelf) {
    self.server = server
    self.shelf = shelf
  }

  /// Listens on `host:port` (0: a port of the system's choosing) with `tls`, the member's
  /// own certificate's context; lending from the start or not.
  /// `patience`: how long a borrower's connection may sit without asking for a part or
  /// taking the one sent (a borrower's process asks part by part and takes each at once,
  /// reconnecting after a pause), before it is closed: one that never reads keeps no
  /// place for good.
  public static func start(
    host: String, port: Int = 0, tls: NIOSSLContext, lends: Bool,
    patience: TimeAmount = .seconds(60)
  ) async throws -> LenderEndpoint {
    let shelf = Shelf(lends: lends)
    let server = try await ItemHTTPServer.start(
      host: host, port: port, tls: tls, maximumConnections: maximumConnections,
      patience: patience
    ) { path in
      shelf.state.withLock { s in
        if let grant = s.book.grant(forPath: path) { return s.sources[grant.token] }
        return s.book.grant(forSubtitlePath: path).flatMap {
          s.sources[Shelf.subtitleKey($0.grant.token, $0.index)]
        }
      }
    }
    return LenderEndpoint(server: server, shelf: shelf)
  }

  /// A member asks to read `item` (see ``LendingBook/request(item:from:named:isMember:watched:has:name:token:subtitle:)``);
  /// `source`: this machine's copy, if it has one, and `name` its file's name;
  /// `subtitles`: the external subtitle files beside it, lent with it, by name.
  public func request(
    item: String, from borrower: String, named borrowerName: String, isMember: Bool,
    watched: Set<String>, source: (any ItemSource)?, name: String,
    subtitles: [(name: String, source: any ItemSource)] = []
  ) -> LendingBook.Answer {
    let token = Self.freshToken()
    return shelf.state.withLock { s in
      let answer = s.book.request(
        item: item, from: borrower, named: borrowerName, isMember: isMember, watched: watched,
        has: source != nil, name: name, token: token, subtitles: subtitles.map(\.name))
      if case .granted(let grant) = answer, s.sources[grant.token] == nil, let source {
        s.sources[grant.token] = source
        for (index, subtitle) in subtitles.prefix(grant.subtitlePaths.count).enumerated() {
          s.sources[Shelf.subtitleKey(grant.token, index)] = subtitle.source
        }
      }
      return answer
    }
  }

  /// The borrower left the room: its grants go, and its reads end.
  @discardableResult
  public func revoke(borrower: String) -> [LendingBook.Grant] {
    shelf.state.withLock { s in Self.forget(s.book.revoke(borrower: borrower), in: &s) }
  }

  /// The group watches (or plays next) only `watched` now.
  @discardableResult
  public func keep(only watched: Set<String>) -> [LendingBook.Grant] {
    shelf.state.withLock { s in Self.forget(s.book.keep(only: watched), in: &s) }
  }

  /// Lends from now on, or stops (every grant taken back).
  @discardableResult
  public func setLends(_ on: Bool) -> [LendingBook.Grant] {
    shelf.state.withLock { s in Self.forget(s.book.setLends(on), in: &s) }
  }

  /// Serves a borrower who reached this member through a tunnel of the room's relay: the
  /// stream is served as a connection to the endpoint is (TLS with this member's
  /// certificate, grants checked at every request), within the same limit.
  public func adopt(_ stream: LenderRoute.Opened) async {
    await server.adopt(stream.channel, release: stream.release)
  }

  public func stop() async { await server.stop() }

  private static func forget(
    _ grants: [LendingBook.Grant],
    in s: inout (book: LendingBook, sources: [String: any ItemSource])
  ) -> [LendingBook.Grant] {
    for grant in grants {
      s.sources[grant.token] = nil
      for index in grant.subtitlePaths.indices {
        s.sources[Shelf.subtitleKey(grant.token, index)] = nil
      }
    }
    return grants
  }

  /// 128 bits from the system's CSPRNG, as 32 hex digits.
  static func freshToken() -> String {
    var random = SystemRandomNumberGenerator()
    return (0..<2).map { _ in
      let hex = String(random.next() as UInt64, radix: 16)
      return String(repeating: "0", count: 16 - hex.count) + hex
    }.joined()
  }
}
