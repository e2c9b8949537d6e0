import Lending
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

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
  /// What the endpoint answered: for the tests, and for what a lender shows.
  public struct Counts: Hashable, Sendable {
    public var requests = 0
    /// Requests for a part of the item (a player's seeks among them).
    public var ranges = 0
    /// Requests refused: another path, another method, a range that cannot be served.
    public var refused = 0
    public var bytesSent: Int64 = 0
  }

  public typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

  /// Where the player reads the item.
  public let url: String
  public let port: Int
  private let server: NIOAsyncChannel<Connection, Never>
  private let serving: Mutex<Task<Void, Never>?> = Mutex(nil)
  private let tally = Mutex(Counts())
  private let open = Atomic<Int>(0)

  public static let maximumConnections = 8
  /// The most read from the source and written at once.
  public static let chunk = 64 * 1024

  public var counts: Counts { tally.withLock { $0 } }
  /// Connections open now.
  public var connectionCount: Int { open.load(ordering: .relaxed) }

  private init(url: String, port: Int, server: NIOAsyncChannel<Connection, Never>) {
    self.url = url
    self.port = port
    self.server = server
  }

  /// Serves `source` as `name` (what the player shows as the file's name) on 127.0.0.1, at
  /// a port of its own.
  public static func start(serving source: any ItemSource, as name: String) async throws
    -> LoopbackItemEndpoint
  {
    var random = SystemRandomNumberGenerator()
    let token = (0..<2).map { _ in String(random.next(), radix: 16) }.joined(separator: "")
    let safeName = String(name.unicodeScalars.map { Self.urlSafe($0) ? Character($0) : "_" })
    let path = "/\(token)/\(safeName.isEmpty ? "item" : safeName)"
    let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .bind(host: "127.0.0.1", port: 0) { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.configureHTTPServerPipeline()
          return try Connection(wrappingChannelSynchronously: channel)
        }
      }
    let port = server.channel.localAddress?.port ?? 0
    let endpoint = LoopbackItemEndpoint(
      url: "http://127.0.0.1:\(port)\(path)", port: port, server: server)
    let task = Task<Void, Never> {
      try? await server.executeThenClose { connections in
        try await withThrowingDiscardingTaskGroup { group in
          for try await connection in connections {
            guard endpoint.open.add(1, ordering: .relaxed).newValue <= Self.maximumConnections
            else {
              endpoint.open.subtract(1, ordering: .relaxed)
              try? await connection.channel.close()
              continue
            }
            group.addTask {
              await endpoint.serve(connection, path: path, source: source)
              endpoint.open.subtract(1, ordering: .relaxed)
            }
          }
        }
      }
    }
    endpoint.serving.withLock { $0 = task }
    return endpoint
  }

  /// Stops listening and closes every connection (cancelled, each closes, a player's
  /// half-sent request or not).
  public func stop() async {
    try? await server.channel.close()
    let task = serving.withLock { $0 }
    task?.cancel()
    await task?.value
  }

  private func serve(_ connection: Connection, path: String, source: any ItemSource) async {
    try? await connection.executeThenClose { inbound, outbound in
      var head: HTTPRequestHead?
      for try await part in inbound {
        switch part {
        case .head(let request): head = request
        case .body: break
        case .end:
          guard let request = head else { return }
          head = nil
          let keepAlive = try await answer(request, path: path, source: source, to: outbound)
          if !keepAlive { return }
        }
      }
    }
  }

  /// Answers one request; returns whether the connection may serve another.
  private func answer(
    _ request: HTTPRequestHead, path: String, source: any ItemSource,
    to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
  ) async throws -> Bool {
    tally.withLock { $0.requests += 1 }
    func refuse(_ status: HTTPResponseStatus, _ why: String, extra: [(String, String)] = [])
      async throws -> Bool
    {
      tally.withLock { $0.refused += 1 }
      var headers = HTTPHeaders([("Content-Type", "text/plain; charset=utf-8")] + extra)
      let body = ByteBuffer(string: why + "\n")
      headers.add(name: "Content-Length", value: "\(body.readableBytes)")
      try await outbound.write(
        .head(HTTPResponseHead(version: request.version, status: status, headers: headers)))
      // The words are the body; an answer to HEAD has none (its length is said all the same).
      if request.method != .HEAD { try await outbound.write(.body(.byteBuffer(body))) }
      try await outbound.write(.end(nil))
      return request.isKeepAlive
    }
    guard request.method == .GET || request.method == .HEAD else {
      return try await refuse(
        .methodNotAllowed, "only GET and HEAD", extra: [("Allow", "GET, HEAD")])
    }
    guard Self.sameBytes(request.uri, path) else {
      return try await refuse(.notFound, "no such item")
    }
    let size = source.size
    let range: ByteRange?
    switch ByteRange.requested(by: request.headers.first(name: "Range"), size: size) {
    case .success(let requested): range = requested
    case .failure(let problem):
      return try await refuse(
        .rangeNotSatisfiable, problem.description, extra: [("Content-Range", "bytes */\(size)")])
    }
    var headers = HTTPHeaders([
      ("Content-Type", "application/octet-stream"), ("Accept-Ranges", "bytes"),
      ("Content-Length", "\(range?.count ?? size)"),
    ])
    if let range {
      headers.add(name: "Content-Range", value: "bytes \(range.first)-\(range.last)/\(size)")
      tally.withLock { $0.ranges += 1 }
    }
    try await outbound.write(
      .head(
        HTTPResponseHead(
          version: request.version, status: range == nil ? .ok : .partialContent,
          headers: headers)))
    if request.method == .GET {
      var offset = range?.first ?? 0
      let end = (range?.last ?? size - 1) + 1
      while offset < end {
        let wanted = Int(min(Int64(Self.chunk), end - offset))
        let chunk = try await source.read(from: offset, maximum: wanted)
        // A source that answers with more (or nothing) would break the length promised:
        // the connection ends instead, and the player sees a read that failed.
        guard chunk.readableBytes > 0, chunk.readableBytes <= wanted else {
          throw ItemSourceError("the item's source read \(chunk.readableBytes) bytes of \(wanted)")
        }
        offset += Int64(chunk.readableBytes)
        try await outbound.write(.body(.byteBuffer(chunk)))
        tally.withLock { $0.bytesSent += Int64(chunk.readableBytes) }
      }
    }
    try await outbound.write(.end(nil))
    return request.isKeepAlive
  }

  /// The path compared in time that does not depend on where it differs (the token is a
  /// secret).
  private static func sameBytes(_ a: String, _ b: String) -> Bool {
    let (x, y) = (Array(a.utf8), Array(b.utf8))
    guard x.count == y.count else { return false }
    var difference: UInt8 = 0
    for index in x.indices { difference |= x[index] ^ y[index] }
    return difference == 0
  }

  private static func urlSafe(_ scalar: Unicode.Scalar) -> Bool {
    scalar.isASCII
      && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
        || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar))
  }
}
