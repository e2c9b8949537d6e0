import NIOCore
import PlaybackCoordination
import RelayTLS
import Rooms
import Synchronization
import TCPRelayClient
import TCPRelayServer
import TestSupport
import Testing
import Transports
import WireProtocol

/// A real relay on loopback with members on real connections, and tunnels dialled as a
/// member's process dials them (``TunnelDialer``): for the relayed path's tests.
struct RelayTunnelRig {
  let server: RelayServer
  let transport: TCPTransport
  let dialer: TunnelDialer

  /// One member on its own connection, what the relay said to it kept in order.
  final class Member: Sendable {
    let connection: any TransportConnection
    let heard = Mutex<[ServerMessage]>([])
    let id: ParticipantID
    private let nextRef = Atomic<UInt64>(1)
    private let pinger: Task<Void, Never>

    init(connection: any TransportConnection, id: ParticipantID, pinger: Task<Void, Never>) {
      self.connection = connection
      self.id = id
      self.pinger = pinger
    }

    /// Asks for a tunnel to `lender`; the ticket's secret, or the refusal's words.
    func ask(for lender: ParticipantID) async -> Result<String, TunnelRefusalText> {
      let ref = nextRef.add(1, ordering: .relaxed).newValue
      try? connection.send(.tunnelOpen(ref: ref, lender: lender))
      var answer: Result<String, TunnelRefusalText>?
      _ = await eventually(5) {
        answer = heard.withLock { heard in
          for message in heard {
            if case .tunnelTicket(ref, let secret) = message { return .success(secret) }
            if case .tunnelRefused(ref, let reason) = message {
              return .failure(TunnelRefusalText(text: reason))
            }
          }
          return nil
        }
        return answer != nil
      }
      return answer ?? .failure(TunnelRefusalText(text: "no answer"))
    }

    /// The secret of the relay's latest call to this member from `borrower` not taken yet.
    func call(from borrower: ParticipantID) async throws -> String {
      var secret: String?
      _ = await eventually(5) {
        secret = heard.withLock { heard in
          for (index, message) in heard.enumerated() {
            if case .tunnelCall(let called, borrower) = message {
              heard.remove(at: index)
              return called
            }
          }
          return nil
        }
        return secret != nil
      }
      guard let secret else { throw TunnelRefusalText(text: "the lender was not called") }
      return secret
    }

    func leave() async {
      pinger.cancel()
      try? connection.send(.bye)
      await connection.close()
    }
  }

  struct TunnelRefusalText: Error, Equatable { var text: String }

  static func start(_ policy: TunnelPolicy?, identity: RelayIdentity? = nil) async throws
    -> RelayTunnelRig
  {
    var configuration = RelayConfiguration()
    configuration.tunnels = policy
    let server = try await RelayServer.start(
      host: "127.0.0.1", port: 0, configuration: configuration, identity: identity)
    let tls = identity.map { RelayVerification(pinned: $0.fingerprint, knownRelays: nil) }
    let transport = TCPTransport(host: "127.0.0.1", port: server.port, tls: tls)
    return RelayTunnelRig(
      server: server, transport: transport, dialer: TunnelDialer(transports: [transport]))
  }

  func enter(_ name: String) async throws -> Member {
    let connection = try await transport.connect()
    try connection.send(
      .hello(version: ProtocolVersion.current, name: name, room: "lobby", resume: nil))
    var iterator = connection.inbound.makeAsyncIterator()
    guard case .welcome(let welcome) = try await iterator.next() else {
      throw TunnelRefusalText(text: "no welcome for \(name)")
    }
    let inbound = connection.inbound
    let pinger = Task {
      var id: UInt64 = 1
      while !Task.isCancelled {
        try? connection.send(.ping(id: id, t0: LocalInstant(nanoseconds: 0)))
        id += 1
        try? await Task.sleep(for: .seconds(1))
      }
    }
    let member = Member(connection: connection, id: welcome.participant, pinger: pinger)
    Task {
      do {
        for try await message in inbound { member.heard.withLock { $0.append(message) } }
      } catch {}
    }
    return member
  }

  /// Both halves of a tunnel `borrower` asked for to `lender`, each with a collector at
  /// the end of its pipeline (reading, unless `lenderReads` says otherwise).
  func tunnel(from borrower: Member, to lender: Member, lenderReads: Bool = true) async throws
    -> (borrower: Collector, lender: Collector)
  {
    let secret = try await borrower.ask(for: lender.id).get()
    let call = try await lender.call(from: borrower.id)
    let dialer = self.dialer
    async let lenderHalf = dialer.dial(secret: call, relay: nil, fingerprint: nil)
    let borrowerHalf = try await dialer.dial(secret: secret, relay: nil, fingerprint: nil)
    return (
      try await Collector.attach(to: borrowerHalf),
      try await Collector.attach(to: lenderHalf, reads: lenderReads)
    )
  }
}

/// The end of a tunnel's half in a test: counts what arrives and checks it against the
/// pattern the other side writes (byte `i` of the stream is `i % 251`).
final class Collector: ChannelInboundHandler, Sendable {
  typealias InboundIn = ByteBuffer
  let channel: any Channel
  let received = Atomic<Int>(0)
  let wrong = Atomic<Int>(0)
  let written = Atomic<Int>(0)

  init(channel: any Channel) { self.channel = channel }

  static func attach(to half: TunnelDialer.Half, reads: Bool = true) async throws -> Collector {
    let collector = Collector(channel: half.channel)
    try await half.channel.eventLoop.submit {
      try half.channel.pipeline.syncOperations.addHandler(collector)
      if !reads { try half.channel.syncOptions?.setOption(.autoRead, value: false) }
    }.get()
    half.release()
    return collector
  }

  /// The pattern from any offset, up to 1 MiB at a time, sliced from one block.
  static let block: [UInt8] = (0..<(251 + (1 << 20))).map { UInt8($0 % 251) }

  static func pattern(from offset: Int, count: Int) -> ArraySlice<UInt8> {
    precondition(count <= 1 << 20)
    let start = offset % 251
    return block[start..<start + count]
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let buffer = unwrapInboundIn(data)
    let start = received.load(ordering: .relaxed)
    var mismatches = 0
    buffer.withUnsafeReadableBytes { bytes in
      var expected = start % 251
      for byte in bytes {
        if byte != UInt8(expected) { mismatches += 1 }
        expected = expected == 250 ? 0 : expected + 1
      }
    }
    if mismatches > 0 { wrong.add(mismatches, ordering: .relaxed) }
    received.add(buffer.readableBytes, ordering: .relaxed)
  }

  /// Writes `count` bytes of the pattern (from byte `from` of it) in chunks of `chunk`,
  /// counting those the socket took.
  func write(_ count: Int, from start: Int = 0, chunk: Int = 1 << 20) {
    var offset = start
    let end = start + count
    while offset < end {
      let n = min(chunk, end - offset)
      let buffer = channel.allocator.buffer(bytes: Self.pattern(from: offset, count: n))
      let promise = channel.eventLoop.makePromise(of: Void.self)
      promise.futureResult.whenSuccess { self.written.add(n, ordering: .relaxed) }
      channel.writeAndFlush(buffer, promise: promise)
      offset += n
    }
  }

  func startReading() {
    channel.eventLoop.execute {
      try? self.channel.syncOptions?.setOption(.autoRead, value: true)
      self.channel.read()
    }
  }
}
