import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PlaybackCoordination
import WireProtocol

/// Which relay a lightweight load client speaks to.
enum LoadProtocol: String, Sendable {
  case cowatch, syncplay
}

/// The command a room's sender issues, and what a receiver waits for.
enum LoadCommand: String, Sendable, CaseIterable {
  case pause, play, seek
}

/// One room of lightweight clients: the sender's last command and when it was sent, shared
/// by the room's connections (all in one process, so one `CLOCK_MONOTONIC`).
final class LoadRoom: @unchecked Sendable {
  let name: String
  let size: Int
  private let lock = NIOLock()
  private(set) var sentAt: Int64 = 0
  private(set) var sentSeq: Int = 0
  private(set) var sentKind: LoadCommand = .seek
  private var arrivals = 0
  /// Set when the room's session exists (Cowatch) or everyone is in (Syncplay).
  var ready = false

  init(name: String, size: Int) {
    self.name = name
    self.size = size
  }

  func markSent(_ kind: LoadCommand) -> Int {
    lock.withLock {
      sentSeq += 1
      sentKind = kind
      sentAt = monoNow()
      arrivals = 0
      return sentSeq
    }
  }

  /// The command a receiver has not yet seen (nil if none): (seq, kind, sentAt).
  func pending(after seen: Int) -> (Int, LoadCommand, Int64)? {
    lock.withLock { sentSeq > seen ? (sentSeq, sentKind, sentAt) : nil }
  }

  func arrived() { lock.withLock { arrivals += 1 } }
  var arrivalCount: Int { lock.withLock { arrivals } }
}

/// Counters and samples shared by every load connection.
final class LoadShared: @unchecked Sendable {
  let samples = Samples()
  let welcomed = NIOLockedValueBox(0)
  let failures = NIOLockedValueBox(0)
  let measuring = NIOLockedValueBox(false)
}

/// One lightweight participant: hello, a heartbeat, the room's commands if it is the
/// sender, and the time each command's update reaches it.
final class LoadHandler: ChannelInboundHandler, @unchecked Sendable {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  let proto: LoadProtocol
  let room: LoadRoom
  let index: Int
  let shared: LoadShared
  /// Seconds between scale commands (nil: commands are issued by the driver).
  let commandInterval: Double?
  let heartbeat: Double
  private var buffer: [UInt8] = []
  private var welcomed = false
  private var seen = 0
  private var nextID: UInt64 = 1
  private var timers: [RepeatedTask] = []
  private var context: ChannelHandlerContext?
  private let codec = WireCodec()
  // Syncplay: the room's state as last heard, and the "ignoring on the fly" counter to echo.
  private var spPaused = true
  private var spPosition = 0.0
  private var spIgnoreServer: Int?

  var name: String { "u\(index)-\(room.name)" }

  init(
    proto: LoadProtocol, room: LoadRoom, index: Int, shared: LoadShared, commandInterval: Double?,
    heartbeat: Double
  ) {
    self.proto = proto
    self.room = room
    self.index = index
    self.shared = shared
    self.commandInterval = commandInterval
    self.heartbeat = heartbeat
  }

  func channelActive(context: ChannelHandlerContext) {
    self.context = context
    switch proto {
    case .cowatch:
      send(.hello(version: ProtocolVersion.current, name: name, room: room.name, resume: nil))
      let jitter = Int64.random(in: 0..<Int64(heartbeat * 1000))
      timers.append(
        context.eventLoop.scheduleRepeatedTask(
          initialDelay: .milliseconds(jitter), delay: .milliseconds(Int64(heartbeat * 1000))
        ) { [weak self] _ in
          guard let self else { return }
          self.nextID += 1
          // Hand-written (same bytes as WireCodec's) so that the load generator's own
          // JSON encoding does not eat the cores the relay is measured on.
          self.writeLine(#"{"id":\#(self.nextID),"t0":\#(monoNow()),"type":"ping"}"#)
        })
    case .syncplay:
      writeLine(
        #"{"Hello": {"username": "\#(name)", "room": {"name": "\#(room.name)"}, "version": "1.2.255", "realversion": "1.6.9", "features": {"sharedPlaylists": false, "chat": false, "readiness": false, "managedRooms": false, "featureList": false}}}"#
      )
    }
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    for t in timers { t.cancel() }
    timers = []
    self.context = nil
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    shared.failures.withLockedValue { $0 += 1 }
    context.close(promise: nil)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    var bytes = unwrapInboundIn(data)
    if let chunk = bytes.readBytes(length: bytes.readableBytes) { buffer += chunk }
    var start = 0
    while let nl = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
      line(buffer[start..<nl])
      start = nl + 1
    }
    if start > 0 { buffer.removeFirst(start) }
  }

  // MARK: - Sending

  private func writeLine(_ text: String) {
    guard let context else { return }
    let suffix = proto == .syncplay ? "\r\n" : "\n"
    context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text + suffix)), promise: nil)
  }

  private func send(_ message: ClientMessage) {
    guard let context else { return }
    context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: codec.encode(message))), promise: nil)
  }

  /// Issues `kind` for the room (the sender only).
  func issue(_ kind: LoadCommand) {
    let seq = room.markSent(kind)
    switch proto {
    case .cowatch:
      nextID += 1
      let item = benchSeries.items[0].id
      let command: GroupCommand =
        switch kind {
        case .pause: .pause(item: item, at: Double(seq % 3000) + 0.5)
        case .play: .play(item: item, rate: nil)
        case .seek: .seek(item: item, to: Double(seq % 3000) + 10)
        }
      send(.command(id: nextID, command))
    case .syncplay:
      var doSeek = false
      switch kind {
      case .pause: spPaused = true
      case .play: spPaused = false
      case .seek:
        doSeek = true
        spPosition = Double(seq % 3000) + 10
      }
      sendSyncplayState(doSeek: doSeek, latency: nil)
    }
  }

  private func sendSyncplayState(doSeek: Bool, latency: Double?) {
    var state =
      #"{"State": {"playstate": {"position": \#(spPosition), "paused": \#(spPaused), "doSeek": \#(doSeek)}, "ping": {"latencyCalculation": \#(latency ?? 0), "clientLatencyCalculation": \#(Date().timeIntervalSince1970), "clientRtt": 0}"#
    if let n = spIgnoreServer {
      state += #", "ignoringOnTheFly": {"server": \#(n)}"#
      spIgnoreServer = nil
    }
    writeLine(state + "}}")
  }

  // MARK: - Receiving

  private func becameWelcomed() {
    guard !welcomed else { return }
    welcomed = true
    shared.welcomed.withLockedValue { $0 += 1 }
    guard index == 0, let context else { return }
    if proto == .cowatch {
      nextID += 1
      send(.command(id: nextID, .start(series: benchSeries, item: benchSeries.items[0].id)))
      nextID += 1
      send(.command(id: nextID, .setReadiness(.ready)))
    }
    room.ready = true
    if let interval = commandInterval {
      let jitter = Int64.random(in: 0..<Int64(interval * 1000))
      timers.append(
        context.eventLoop.scheduleRepeatedTask(
          initialDelay: .milliseconds(1000 + jitter), delay: .milliseconds(Int64(interval * 1000))
        ) { [weak self] _ in self?.issue(.seek) })
    }
  }

  /// The relay broadcasts each applied command as a step carrying the command itself, a
  /// `{"type":"pause",…}` object (protocol 2). The closing quote keeps `"play"` from
  /// matching `"played"`.
  private static let markers: [LoadCommand: [UInt8]] = [
    .pause: Array(#""type":"pause""#.utf8), .play: Array(#""type":"play""#.utf8),
    .seek: Array(#""type":"seek""#.utf8),
  ]

  private func line(_ bytes: ArraySlice<UInt8>) {
    let now = monoNow()
    switch proto {
    case .cowatch:
      if !welcomed {
        if bytes.starts(with: Array(#"{"type":"welcome""#.utf8))
          || contains(bytes, #""type":"welcome""#)
        {
          becameWelcomed()
        }
        return
      }
      guard index != 0, let (seq, kind, sentAt) = room.pending(after: seen) else { return }
      guard contains(bytes, #""type":"step""#), contains(bytes, Self.markers[kind]!) else { return }
      seen = seq
      record(now - sentAt)
    case .syncplay:
      guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
      else {
        return
      }
      if object["Hello"] != nil {
        becameWelcomed()
        return
      }
      guard let state = object["State"] as? [String: Any] else { return }
      let playstate = state["playstate"] as? [String: Any] ?? [:]
      let ping = state["ping"] as? [String: Any] ?? [:]
      let paused = playstate["paused"] as? Bool ?? spPaused
      let doSeek = playstate["doSeek"] as? Bool ?? false
      let setBy = playstate["setBy"] as? String
      if let ignoring = state["ignoringOnTheFly"] as? [String: Any],
        let n = ignoring["server"] as? Int
      {
        spIgnoreServer = n
      }
      if index != 0, let (seq, kind, sentAt) = room.pending(after: seen),
        setBy == "u0-\(room.name)"
      {
        let hit =
          switch kind {
          case .pause: paused
          case .play: !paused
          case .seek: doSeek
          }
        if hit {
          seen = seq
          record(now - sentAt)
        }
      }
      spPaused = paused
      if let p = playstate["position"] as? Double { spPosition = p }
      // Answer every server state, as the real client does (also its heartbeat).
      sendSyncplayState(doSeek: false, latency: ping["latencyCalculation"] as? Double)
    }
  }

  private func record(_ nanoseconds: Int64) {
    room.arrived()
    if shared.measuring.withLockedValue({ $0 }) { shared.samples.add(Double(nanoseconds) / 1e6) }
  }

  private func contains(_ bytes: ArraySlice<UInt8>, _ needle: String) -> Bool {
    contains(bytes, Array(needle.utf8))
  }

  private func contains(_ bytes: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
    guard needle.count <= bytes.count, let first = needle.first else { return false }
    var i = bytes.startIndex
    let last = bytes.endIndex - needle.count
    while i <= last {
      if bytes[i] == first, bytes[i..<(i + needle.count)].elementsEqual(needle) { return true }
      i += 1
    }
    return false
  }
}

/// Many lightweight connections in one process.
final class LoadFleet: @unchecked Sendable {
  let proto: LoadProtocol
  let host: String
  let port: Int
  let shared = LoadShared()
  private(set) var rooms: [LoadRoom] = []
  private(set) var senders: [LoadHandler] = []
  private var channels: [any Channel] = []
  let group: MultiThreadedEventLoopGroup

  let roomPrefix: String

  init(proto: LoadProtocol, host: String, port: Int, threads: Int = 2, roomPrefix: String = "r") {
    self.roomPrefix = roomPrefix
    self.proto = proto
    self.host = host
    self.port = port
    group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
  }

  /// Opens `participants` connections in rooms of `roomSize`, at most `batch` at a time,
  /// and waits (bounded) until all are welcomed. Returns how many were welcomed.
  func connect(
    participants: Int, roomSize: Int, commandInterval: Double?, heartbeat: Double, batch: Int = 250,
    timeout: Double
  ) async -> Int {
    let roomCount = (participants + roomSize - 1) / roomSize
    let deadline = monoNow() + Int64(timeout * 1e9)
    var opened = 0
    for r in 0..<roomCount {
      let loop = group.next()
      let size = min(roomSize, participants - r * roomSize)
      let room = LoadRoom(name: "\(roomPrefix)\(r)", size: size)
      rooms.append(room)
      for i in 0..<size {
        let handler = LoadHandler(
          proto: proto, room: room, index: i, shared: shared, commandInterval: commandInterval,
          heartbeat: heartbeat)
        if i == 0 { senders.append(handler) }
        do {
          let channel = try await ClientBootstrap(group: loop)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(10))
            .channelInitializer { ch in
              ch.eventLoop.makeCompletedFuture {
                try ch.pipeline.syncOperations.addHandler(handler)
              }
            }
            .connect(host: host, port: port).get()
          channels.append(channel)
        } catch {
          shared.failures.withLockedValue { $0 += 1 }
          progress("connection \(opened) failed: \(error)")
          return shared.welcomed.withLockedValue { $0 }
        }
        opened += 1
        // The sender first: it creates the room's session before the others arrive.
        if i == 0 || opened % batch == 0 {
          while shared.welcomed.withLockedValue({ $0 }) < opened - (i == 0 ? 0 : batch / 2),
            monoNow() < deadline
          {
            await sleepSeconds(0.002)
          }
        }
        if monoNow() > deadline { return shared.welcomed.withLockedValue { $0 } }
      }
    }
    while shared.welcomed.withLockedValue({ $0 }) < opened, monoNow() < deadline {
      await sleepSeconds(0.01)
    }
    return shared.welcomed.withLockedValue { $0 }
  }

  /// Has sender `room` issue `kind` on its event loop.
  func issue(_ kind: LoadCommand, room: Int) {
    let sender = senders[room]
    channels[roomOffsets[room]].eventLoop.execute { sender.issue(kind) }
  }

  private var roomOffsets: [Int] {
    var offsets: [Int] = []
    var o = 0
    for r in rooms {
      offsets.append(o)
      o += r.size
    }
    return offsets
  }

  func close() async {
    for c in channels { c.close(promise: nil) }
    await sleepSeconds(0.3)
    channels = []
    try? await group.shutdownGracefully()
  }
}
