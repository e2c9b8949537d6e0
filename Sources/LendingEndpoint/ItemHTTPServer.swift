import Lending
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// What an item endpoint answered: for the tests, and for what a lender shows.
public struct ServedCounts: Hashable, Sendable {
  public var requests = 0
  /// Requests for a part of the item (a player's seeks among them).
  public var ranges = 0
  /// Requests refused: another path, another method, a range that cannot be served.
  public var refused = 0
  public var bytesSent: Int64 = 0
}

/// Items served over HTTP/1.1 by path, GET and HEAD only, by ranges: the loopback
/// endpoint a borrower's player reads, and a lender's endpoint (over TLS) that borrowers'
/// processes read. Which path reads which item is the owner's to say (`lookup`), at every
/// request and before every chunk: an item taken back stops being read at the next chunk.
///
/// Each body is read and written a chunk at a time, as the reader takes it, so a reader
/// that stops holds one chunk, not the file; at most `maximumConnections` at once; and a
/// connection that sends no request, or takes no chunk, for `patience` is closed, so that
/// a reader that never reads does not keep its place for good.
final class ItemHTTPServer: Sendable {
  typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

  let port: Int
  let maximumConnections: Int
  private let server: NIOAsyncChannel<Connection, Never>
  private let serving: Mutex<Task<Void, Never>?> = Mutex(nil)
  private let tally = Mutex(ServedCounts())
  private let open = Atomic<Int>(0)
  private let lookup: @Sendable (String) -> (any ItemSource)?
  private let patience: TimeAmount
  /// What connections come with (TLS for a lender), for the streams it adopts.
  private let tls: NIOSSLContext?
  /// Streams it adopted (tunnels through the relay), served until they end or it stops.
  private let adopted = Mutex<[ObjectIdentifier: Task<Void, Never>]>([:])

  /// The most read from the source and written at once.
  static let chunk = 64 * 1024
  /// How long a connection may keep the endpoint waiting: for its next request, or to
  /// take a chunk.
  static let defaultPatience = TimeAmount.seconds(60)

  var counts: ServedCounts { tally.withLock { $0 } }
  var connectionCount: Int { open.load(ordering: .relaxed) }

  private init(
    port: Int, maximumConnections: Int, server: NIOAsyncChannel<Connection, Never>,
    patience: TimeAmount, tls: NIOSSLContext?,
    lookup: @escaping @Sendable (String) -> (any ItemSource)?
  ) {
    self.patience = patience
    self.tls = tls
    self.port = port
    self.maximumConnections = maximumConnections
    self.server = server
    self.lookup = lookup
  }

  /// Listens on `host:port` (0: a port of the system's choosing), over TLS with `tls`.
  static func start(
    host: String, port: Int, tls: NIOSSLContext?, maximumConnections: Int,
    patience: TimeAmount = defaultPatience,
    lookup: @escaping @Sendable (String) -> (any ItemSource)?
  ) async throws -> ItemHTTPServer {
    let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .bind(host: host, port: port) { channel in
        channel.eventLoop.makeCompletedFuture {
          if let tls {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
          }
          try channel.pipeline.syncOperations.configureHTTPServerPipeline()
          return try Connection(wrappingChannelSynchronously: channel)
        }
      }
    let endpoint = ItemHTTPServer(
      port: server.channel.localAddress?.port ?? 0, maximumConnections: maximumConnections,
      server: server, patience: patience, tls: tls, lookup: lookup)
    let task = Task<Void, Never> {
      try? await server.executeThenClose { connections in
        try await withThrowingDiscardingTaskGroup { group in
          for try await connection in connections {
            guard endpoint.open.add(1, ordering: .relaxed).newValue <= maximumConnections
            else {
              endpoint.open.subtract(1, ordering: .relaxed)
              try? await connection.channel.close()
              continue
            }
            group.addTask {
              await endpoint.serve(connection)
              endpoint.open.subtract(1, ordering: .relaxed)
            }
          }
        }
      }
    }
    endpoint.serving.withLock { $0 = task }
    return endpoint
  }

  /// Serves a stream opened another way than by listening (a tunnel through the relay) as
  /// it serves a connection: the same TLS, the same paths, within the same connection
  /// limit. `release` lets the stream's first bytes through once the handlers are added.
  func adopt(_ channel: any Channel, release: @escaping @Sendable () -> Void) async {
    guard open.add(1, ordering: .relaxed).newValue <= maximumConnections else {
      open.subtract(1, ordering: .relaxed)
      try? await channel.close()
      return
    }
    let tls = self.tls
    let connection: Connection
    do {
      connection = try await channel.eventLoop.submit {
        if let tls {
          try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
        }
        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
        return try Connection(wrappingChannelSynchronously: channel)
      }.get()
    } catch {
      open.subtract(1, ordering: .relaxed)
      try? await channel.close()
      return
    }
    release()
    let key = ObjectIdentifier(channel)
    // Started under the lock: its own removal, which takes the lock, comes after this.
    adopted.withLock { tasks in
      tasks[key] = Task {
        await self.serve(connection)
        self.open.subtract(1, ordering: .relaxed)
        _ = self.adopted.withLock { $0.removeValue(forKey: key) }
      }
    }
  }

  /// Stops listening and closes every connection (cancelled, each closes, a reader's
  /// half-sent request or not).
  func stop() async {
    try? await server.channel.close()
    let task = serving.withLock { $0 }
    task?.cancel()
    await task?.value
    let streams = adopted.withLock { $0 }
    for stream in streams.values {
      stream.cancel()
      await stream.value
    }
  }

  private func serve(_ connection: Connection) async {
    let channel = connection.channel
    let patience = self.patience
    /// Closes the connection unless cancelled within `patience`.
    @Sendable func deadline() -> Scheduled<Void> {
      channel.eventLoop.scheduleTask(in: patience) { channel.close(promise: nil) }
    }
    try? await connection.executeThenClose { inbound, outbound in
      var head: HTTPRequestHead?
      var waiting = deadline()
      defer { waiting.cancel() }
      for try await part in inbound {
        waiting.cancel()
        switch part {
        case .head(let request): head = request
        case .body: break
        case .end:
          guard let request = head else { return }
          head = nil
          let keepAlive = try await answer(request, to: outbound, deadline: deadline)
          if !keepAlive { return }
        }
        waiting = deadline()
      }
    }
  }

  /// Answers one request; returns whether the connection may serve another.
  private func answer(
    _ request: HTTPRequestHead, to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>,
    deadline: @Sendable () -> Scheduled<Void>
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
    guard let source = lookup(request.uri) else {
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
        // Taken back meanwhile (the borrower left, lending stopped): the read ends here.
        guard lookup(request.uri) != nil else {
          throw ItemSourceError("the item is no longer served at this address")
        }
        let wanted = Int(min(Int64(Self.chunk), end - offset))
        let chunk = try await source.read(from: offset, maximum: wanted)
        // A source that answers with more (or nothing) would break the length promised:
        // the connection ends instead, and the reader sees a read that failed.
        guard chunk.readableBytes > 0, chunk.readableBytes <= wanted else {
          throw ItemSourceError("the item's source read \(chunk.readableBytes) bytes of \(wanted)")
        }
        offset += Int64(chunk.readableBytes)
        // A reader that takes no chunk in time is let go.
        let taking = deadline()
        defer { taking.cancel() }
        try await outbound.write(.body(.byteBuffer(chunk)))
        tally.withLock { $0.bytesSent += Int64(chunk.readableBytes) }
      }
    }
    try await outbound.write(.end(nil))
    return request.isKeepAlive
  }
}
