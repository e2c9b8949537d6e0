import Lending
import NIOCore
import NIOHTTP1
import NIOPosix
import RelayTLS
import Synchronization

/// An item read from another endpoint over HTTP, range by range, as a borrower's player
/// reads a lent item: what the player asks of the borrower's own endpoint is asked of the
/// lender's, a part at a time, on one connection kept open (opened again after it drops).
///
/// Every answer is checked before a byte of it is passed on: the status, the range it says
/// it carries, its length (never more than was asked for: a lender cannot flood the
/// borrower); every exchange is bounded in time (the connection is closed when one is not
/// done in time, and the read fails).
public actor RemoteItemSource: ItemSource {
  public nonisolated let size: Int64
  private let host: String
  private let port: Int
  private let path: String
  private let timeout: TimeAmount
  private let tls: RelayVerification?
  /// How the lender is reached when not at its address (nil: at its address).
  private let route: LenderRoute?
  private var link: HTTPLink?

  /// Asks `url` (`http://HOST:PORT/PATH`, or `https://…` with the lender's certificate
  /// `pinned`: the only one accepted) for the item's size: an endpoint that cannot be
  /// reached, or does not serve ranges, is one error. `timeout`: the longest one exchange
  /// may take, seconds; `connectTimeout` the longest a connection may take to open (a
  /// borrower tries the lender's address briefly before asking the relay). With `route`,
  /// every connection goes that way (a tunnel through the relay) instead of to the URL's
  /// address, and TLS with the lender is the same inside it.
  public static func open(
    _ url: String, pinned: String? = nil, timeout: Double = 10, connectTimeout: Double? = nil,
    route: LenderRoute? = nil
  ) async throws(ItemSourceError) -> RemoteItemSource {
    guard let (secure, host, port, path) = Self.parse(url) else {
      throw ItemSourceError("not an http(s)://HOST:PORT/PATH address: \(url.prefix(100))")
    }
    guard secure == (pinned != nil) else {
      throw ItemSourceError(
        secure ? "an https address needs the lender's certificate" : "a certificate needs https")
    }
    let tls = pinned.map { RelayVerification(pinned: $0, knownRelays: nil) }
    guard timeout.isFinite, (0.1...120).contains(timeout) else {
      throw ItemSourceError("a timeout is 0.1–120 s, not \(timeout)")
    }
    let wait = TimeAmount.milliseconds(Int64(timeout * 1000))
    let connectWait = TimeAmount.milliseconds(
      Int64(min(timeout, max(0.1, connectTimeout ?? timeout)) * 1000))
    var opened: HTTPLink?
    let head: HTTPResponseHead
    do {
      let link = try await HTTPLink.connect(
        host: host, port: port, tls: tls, timeout: wait, connectTimeout: connectWait,
        route: route)
      opened = link
      (head, _) = try await link.exchange(
        HTTPLink.Request(method: .HEAD, host: host, path: path, range: nil, maximum: 0))
    } catch {
      // A refused certificate says why in words of its own.
      let why = opened?.refusal.text ?? "\(error)"
      let way = route.map { " \($0.description)" } ?? ""
      throw ItemSourceError(
        "cannot read the item at \(host):\(port)\(way): \(why)",
        unreachable: opened == nil && route == nil)
    }
    guard let link = opened else { throw ItemSourceError("no connection to \(host):\(port)") }
    guard head.status == .ok, let length = head.headers.first(name: "Content-Length"),
      let size = Int64(length), size >= 0, head.headers.first(name: "Accept-Ranges") == "bytes"
    else {
      link.close()
      throw ItemSourceError("\(host):\(port) does not serve the item by ranges (\(head.status))")
    }
    return RemoteItemSource(
      size: size, host: host, port: port, path: path, timeout: wait, tls: tls, route: route,
      link: link)
  }

  private init(
    size: Int64, host: String, port: Int, path: String, timeout: TimeAmount,
    tls: RelayVerification?, route: LenderRoute?, link: HTTPLink
  ) {
    self.tls = tls
    self.route = route
    self.size = size
    self.host = host
    self.port = port
    self.path = path
    self.timeout = timeout
    self.link = link
  }

  public func read(from offset: Int64, maximum: Int) async throws -> ByteBuffer {
    guard offset >= 0, offset < size, maximum > 0 else { return ByteBuffer() }
    let range = ByteRange(first: offset, last: min(size - 1, offset + Int64(maximum) - 1))
    let request = HTTPLink.Request(
      method: .GET, host: host, path: path, range: range, maximum: Int(range.count))
    var link: HTTPLink
    var kept = false
    if let open = self.link, open.isOpen {
      link = open
      kept = true
    } else {
      link = try await HTTPLink.connect(
        host: host, port: port, tls: tls, timeout: timeout, connectTimeout: timeout, route: route)
      self.link = link
    }
    let (head, body): (HTTPResponseHead, ByteBuffer)
    do {
      (head, body) = try await link.exchange(request)
    } catch  where kept && ((error as? ItemSourceError)?.unanswered ?? true) {
      // The lender let an idle connection go as this request left (the connection closed,
      // or would not take it): once more, afresh. A wrong answer is not asked again.
      link.close()
      link = try await HTTPLink.connect(host: host, port: port, tls: tls, timeout: timeout)
      self.link = link
      do {
        (head, body) = try await link.exchange(request)
      } catch {
        link.close()
        throw error
      }
    } catch {
      link.close()
      throw error
    }
    guard head.status == .partialContent,
      head.headers.first(name: "Content-Range") == "bytes \(range.first)-\(range.last)/\(size)",
      Int64(body.readableBytes) == range.count
    else {
      link.close()
      throw ItemSourceError(
        "the lender's answer is not the part asked for (\(head.status), \(body.readableBytes) bytes)"
      )
    }
    return body
  }

  /// Closes the connection (a later read opens another).
  public func close() {
    link?.close()
    link = nil
  }

  /// `http(s)://HOST:PORT/PATH`, the only forms an endpoint gives: whether it is https,
  /// the host, port and path.
  static func parse(_ url: String) -> (Bool, String, Int, String)? {
    guard url.utf8.count <= 2048 else { return nil }
    let secure = url.hasPrefix("https://")
    guard secure || url.hasPrefix("http://") else { return nil }
    let rest = url.dropFirst(secure ? "https://".count : "http://".count)
    guard let slash = rest.firstIndex(of: "/") else { return nil }
    let authority = rest[..<slash]
    guard let colon = authority.lastIndex(of: ":"),
      let port = Int(authority[authority.index(after: colon)...]), (1...65535).contains(port)
    else { return nil }
    let host = String(authority[..<colon])
    guard !host.isEmpty else { return nil }
    return (secure, host, port, String(rest[slash...]))
  }
}

/// One HTTP/1.1 connection, its exchanges one after another: each request waits in line,
/// and is answered (or failed) once; the connection ends at the first failure.
final class HTTPLink: Sendable {
  struct Request: Sendable {
    var method: HTTPMethod
    var host: String
    var path: String
    var range: ByteRange?
    /// The longest body taken.
    var maximum: Int
  }

  private struct Pending: Sendable {
    var request: Request
    var reply: CheckedContinuation<(HTTPResponseHead, ByteBuffer), any Error>
  }

  private let channel: any Channel
  private let requests: AsyncStream<Pending>.Continuation
  private let open = Atomic<Bool>(true)
  /// Why the other end's certificate was refused, if it was.
  let refusal: RelayVerification.Refusal

  private init(
    channel: any Channel, requests: AsyncStream<Pending>.Continuation,
    refusal: RelayVerification.Refusal
  ) {
    self.channel = channel
    self.requests = requests
    self.refusal = refusal
  }

  var isOpen: Bool { open.load(ordering: .relaxed) && channel.isActive }

  /// `tls`: over TLS, the certificate checked as it says (pinned, for a lender). `route`:
  /// through that stream instead of to `host:port`.
  static func connect(
    host: String, port: Int, tls: RelayVerification? = nil, timeout: TimeAmount,
    connectTimeout: TimeAmount? = nil, route: LenderRoute? = nil
  ) async throws -> HTTPLink {
    typealias Connection = NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
    let refusal = RelayVerification.Refusal()
    @Sendable func configure(_ channel: any Channel) throws -> Connection {
      if let tls {
        try channel.pipeline.syncOperations.addHandler(
          tls.clientHandler(host: host, endpoint: "\(host):\(port)", refusal: refusal))
      }
      try channel.pipeline.syncOperations.addHTTPClientHandlers()
      return try Connection(wrappingChannelSynchronously: channel)
    }
    let connection: Connection
    if let route {
      let opened = try await route.connect()
      do {
        connection = try await opened.channel.eventLoop.submit {
          try configure(opened.channel)
        }.get()
      } catch {
        opened.channel.close(promise: nil)
        throw error
      }
      opened.release()
    } else {
      connection = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connectTimeout(connectTimeout ?? timeout)
        .connect(host: host, port: port) { channel in
          channel.eventLoop.makeCompletedFuture { try configure(channel) }
        }
    }
    let (stream, requests) = AsyncStream<Pending>.makeStream(bufferingPolicy: .unbounded)
    let link = HTTPLink(channel: connection.channel, requests: requests, refusal: refusal)
    let channel = connection.channel
    Task {
      var unanswered: Pending?
      do {
        try await connection.executeThenClose { inbound, outbound in
          var responses = inbound.makeAsyncIterator()
          for await pending in stream {
            unanswered = pending
            // Not done in time: the connection closes, and the wait below ends in an error.
            let deadline = channel.eventLoop.scheduleTask(in: timeout) {
              channel.close(promise: nil)
            }
            defer { deadline.cancel() }
            let answer = try await Self.exchange(
              pending.request, outbound: outbound, responses: &responses)
            unanswered = nil
            pending.reply.resume(returning: answer)
          }
        }
      } catch {
        unanswered?.reply.resume(throwing: error)
        unanswered = nil
      }
      link.open.store(false, ordering: .relaxed)
      requests.finish()
      // Whoever still waits in line is told the connection is gone.
      for await pending in stream {
        pending.reply.resume(
          throwing: ItemSourceError("the connection to the lender closed", unanswered: true))
      }
    }
    return link
  }

  func exchange(_ request: Request) async throws -> (HTTPResponseHead, ByteBuffer) {
    try await withCheckedThrowingContinuation { reply in
      if case .terminated = requests.yield(Pending(request: request, reply: reply)) {
        reply.resume(
          throwing: ItemSourceError("the connection to the lender closed", unanswered: true))
      }
    }
  }

  func close() {
    open.store(false, ordering: .relaxed)
    requests.finish()
    channel.close(promise: nil)
  }

  private static func exchange(
    _ request: Request, outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>,
    responses: inout NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator
  ) async throws -> (HTTPResponseHead, ByteBuffer) {
    var headers = HTTPHeaders([("Host", request.host)])
    if let range = request.range {
      headers.add(name: "Range", value: "bytes=\(range.first)-\(range.last)")
    }
    try await outbound.write(
      .head(
        HTTPRequestHead(
          version: .http1_1, method: request.method, uri: request.path, headers: headers)))
    try await outbound.write(.end(nil))
    var head: HTTPResponseHead?
    var body = ByteBuffer()
    while let part = try await responses.next() {
      switch part {
      case .head(let answer): head = answer
      case .body(var chunk):
        guard body.readableBytes + chunk.readableBytes <= request.maximum else {
          throw ItemSourceError("the lender sent more than was asked for")
        }
        body.writeBuffer(&chunk)
      case .end:
        guard let head else { throw ItemSourceError("an answer with no head") }
        return (head, body)
      }
    }
    throw ItemSourceError(
      head == nil
        ? "the lender closed the connection before answering"
        : "the lender closed the connection mid-answer",
      unanswered: head == nil && body.readableBytes == 0)
  }
}
