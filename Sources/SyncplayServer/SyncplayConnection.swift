import Clocks
import LineFraming
import Logging
import NIOCore
import NIOSSL
import ParticipantRuntime
import Participation
import PlaybackCoordination
import RelayRuntime
import RoomCrypto
import Synchronization
import SyncplayBridge
import SyncplayProtocol

/// How many Syncplay clients are entering a password room now (each runs scrypt).
final class PasswordChecks: Sendable {
  private let running = Mutex(0)
  let limit: Int

  init(limit: Int = 1) { self.limit = limit }

  func begin() -> Bool {
    running.withLock { n in
      guard n < limit else { return false }
      n += 1
      return true
    }
  }

  func end() { running.withLock { $0 -= 1 } }
}

/// One Syncplay client: the runtime around a ``SyncplayBridgeCore``. It holds the channel,
/// the Cowatch participant that stands for the client (a ``ParticipantClient`` of this
/// relay's runtime, through an ``InProcessTransport``) and a timer, feeds the core what
/// happens with the time, and performs what it returns. It is also that participant's
/// player: the coordinator's commands go to the core and become the client's states.
final class SyncplayConnection: PlayerDriver, @unchecked Sendable {
  // @unchecked: every mutable field is inside `state` (a Mutex); the rest is immutable.
  private struct State {
    var core: SyncplayBridgeCore
    var client: ParticipantClient?
    var timer: Task<Void, Never>?
    var timerDeadline: LocalInstant?
    var closed = false
  }

  private let state: Mutex<State>
  /// Bytes written and not yet taken by the socket (apart from the lock: a write on the
  /// channel's own thread completes, and counts down, within the write).
  private let queuedBytes = Atomic<Int>(0)
  private let channel: any Channel
  private let runtime: RelayRuntime
  private let address: String?
  private let clock: any SessionClock
  private let logger: Logger
  private let codec = SyncplayCodec()
  private let passwordChecks: PasswordChecks
  private let tls: NIOSSLContext?
  private let requests: AsyncStream<ParticipantRequest>.Continuation
  private let requestStream: AsyncStream<ParticipantRequest>
  /// Bytes queued for a client that does not read, at most; past it the client is dropped.
  static let maximumQueuedBytes = 1 << 20
  /// Requests waiting for the participant, at most (the relay's own rate limits refuse a
  /// flood long before).
  static let maximumQueuedRequests = 256

  init(
    channel: any Channel, runtime: RelayRuntime, configuration: SyncplayBridgeConfiguration,
    clock: any SessionClock, logger: Logger, passwordChecks: PasswordChecks,
    tls: NIOSSLContext?
  ) {
    self.tls = tls
    self.passwordChecks = passwordChecks
    self.channel = channel
    self.runtime = runtime
    self.address = channel.remoteAddress?.ipAddress
    self.clock = clock
    self.logger = logger
    state = Mutex(State(core: SyncplayBridgeCore(configuration: configuration)))
    (requestStream, requests) = AsyncStream.makeStream(
      bufferingPolicy: .bufferingOldest(Self.maximumQueuedRequests))
  }

  // MARK: - Inputs

  /// The connection is open: the clock for its Hello starts.
  func opened() {
    let now = clock.localNow()
    state.withLock { s in run(s.core.connected(at: now), in: &s) }
  }

  func received(_ frame: InboundFrame) {
    let now = clock.localNow()
    state.withLock { s in
      switch frame {
      case .line(let bytes):
        // What a peer sent, escaped and cut as the relay logs peer text.
        logger.trace("syncplay << \(RelayRuntime.loggable(String(decoding: bytes, as: UTF8.self)))")
        do throws(SyncplayError) {
          for message in try codec.decode(bytes) {
            run(s.core.received(message, at: now), in: &s)
          }
        } catch {
          run(s.core.receivedInvalid(error), in: &s)
        }
      case .tooLarge(let limit), .overBudget(let limit):
        run(s.core.receivedInvalid(.lineTooLong(limit: limit)), in: &s)
      }
    }
  }

  /// The client went away: its participant leaves the room at once (a Syncplay client
  /// that comes back is a new participant, and its name must be free for it).
  func channelClosed() {
    let client = state.withLock { s -> ParticipantClient? in
      _ = s.core.close()
      s.closed = true
      s.timer?.cancel()
      s.timer = nil
      defer { s.client = nil }
      return s.client
    }
    requests.finish()
    if let client { Task { await client.stop() } }
  }

  private func clientEvent(_ event: ClientEvent) {
    let now = clock.localNow()
    state.withLock { s in run(s.core.clientEvent(event, at: now), in: &s) }
  }

  private func enterFailed(_ error: ClientError) {
    state.withLock { s in run(s.core.enterFailed(error.description), in: &s) }
  }

  private func fire() {
    let now = clock.localNow()
    state.withLock { s in
      s.timer = nil
      s.timerDeadline = nil
      run(s.core.tick(at: now), in: &s)
    }
  }

  // MARK: - PlayerDriver

  func perform(_ command: PlayerCommand, at now: LocalInstant) {
    state.withLock { s in run(s.core.perform(command, at: now), in: &s) }
  }

  func observe(at now: LocalInstant) -> PlayerObservation {
    state.withLock { $0.core.observe(at: now) }
  }

  func takeUserActions() -> [PlayerUserAction] {
    state.withLock { $0.core.takeUserActions() }
  }

  // MARK: - Effects

  /// Runs a channel operation on the channel's event loop after the current task, never in
  /// place. Effects run under the lock, often on that very loop, and a close there (or a
  /// failed write, which closes) would call `channelClosed` back at once, which takes the
  /// lock again: a peer could crash the relay with one bad line. Tasks run in the order
  /// they were queued, so lines still leave in the core's order, the close after them.
  private func onChannel(_ operation: @escaping @Sendable (any Channel) -> Void) {
    let channel = self.channel
    channel.eventLoop.execute { operation(channel) }
  }

  /// Performs effects under the lock, so that lines leave in the order the core decided
  /// them (every channel operation is queued on the channel's event loop).
  private func run(_ effects: [SyncplayBridgeEffect], in s: inout State) {
    for effect in effects {
      switch effect {
      case .send(let message):
        guard !s.closed else { continue }
        let line = codec.encode(message)
        logger.trace("syncplay >> \(RelayRuntime.loggable(String(decoding: line, as: UTF8.self)))")
        let queued = queuedBytes.add(line.count, ordering: .relaxed).newValue
        if queued > Self.maximumQueuedBytes {
          logger.notice("a Syncplay client at \(address ?? "?") is not reading; closing it")
          s.closed = true
          onChannel { $0.close(promise: nil) }
          continue
        }
        let promise = channel.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { [weak self] _ in
          self?.queuedBytes.subtract(line.count, ordering: .relaxed)
        }
        onChannel { $0.writeAndFlush(ByteBuffer(bytes: line), promise: promise) }
      case .enter(let name, let room, let password):
        enter(name: name, room: room, password: password, in: &s)
      case .request(let request):
        if case .dropped = requests.yield(request) {
          run(
            [
              .send(
                .chat(
                  username: SyncplayBridgeCore.narrator,
                  message: "too much at once: that was not sent; slow down"))
            ],
            in: &s)
        }
      case .startTLS:
        guard let tls, !s.closed else { continue }
        // After the answer that says yes has left in the clear: the client starts its
        // handshake only once it has read it.
        onChannel { channel in
          channel.writeAndFlush(ByteBuffer()).whenComplete { _ in
            do {
              try channel.pipeline.syncOperations.addHandler(
                NIOSSLServerHandler(context: tls), position: .first)
            } catch {
              channel.close(promise: nil)
            }
          }
        }
      case .close:
        guard !s.closed else { continue }
        s.closed = true
        // After what is queued (the error that says why).
        onChannel { channel in
          channel.writeAndFlush(ByteBuffer(), promise: nil)
          channel.close(promise: nil)
        }
      }
    }
    schedule(in: &s)
  }

  private func enter(name: String, room: String, password: String?, in s: inout State) {
    var roomPassword: RoomPassword?
    if let password {
      do throws(RoomCryptoError) {
        roomPassword = try RoomPassword(syncplayDigest: password)
      } catch {
        run(s.core.enterFailed("the password: \(error)"), in: &s)
        return
      }
      // Entering with a password runs scrypt here, on the relay (128 MiB, a third of a
      // second): one at a time, so that a crowd of hellos cannot exhaust the machine.
      guard passwordChecks.begin() else {
        run(
          s.core.enterFailed(
            "the relay is checking another password; try again in a moment"), in: &s)
        return
      }
    }
    let checksPassword = roomPassword != nil
    var configuration = ParticipantConfiguration(name: name, room: room)
    // The client's player is known only through its reports (ten reads a second, and
    // frames of 40 ms): the coordinator never bends its speed and leaves small gaps alone;
    // the bridge decides when a drift is worth a seek.
    configuration.sync.tolerance = 0.1
    configuration.sync.deadband = 1_000
    configuration.sync.seekThreshold = s.core.configuration.driftThreshold
    configuration.sync.maximumRateError = 0
    configuration.correctionInterval = 0.1
    let client = ParticipantClient(
      transport: InProcessTransport(runtime: runtime, address: address, origin: .syncplay),
      configuration: configuration, player: self, clock: clock, password: roomPassword,
      logger: logger,
      observer: { [weak self] event in self?.clientEvent(event) })
    s.client = client
    let requests = requestStream
    let passwordChecks = self.passwordChecks
    let logger = self.logger
    Task { [weak self] in
      do throws(ClientError) {
        try await client.start()
        if checksPassword { passwordChecks.end() }
      } catch {
        if checksPassword { passwordChecks.end() }
        self?.enterFailed(error)
        await client.stop()
        return
      }
      // Every event reaches the core through the observer; the stream is only drained.
      Task { for await _ in client.events {} }
      // The Syncplay client's own pauses and seeks: carried out as a person's actions are.
      _ = ActionPerformer.followPlayer(of: client) { _, output in
        if case .error(let problem) = output {
          logger.info("\(name)'s Syncplay client: \(problem)")
        }
      }
      for await request in requests { await client.submit(request) }
    }
  }

  /// Keeps one timer task sleeping until the core's next deadline.
  private func schedule(in s: inout State) {
    guard !s.closed, let deadline = s.core.nextDeadline else {
      s.timer?.cancel()
      s.timer = nil
      s.timerDeadline = nil
      return
    }
    if s.timer != nil, s.timerDeadline == deadline { return }
    s.timer?.cancel()
    s.timerDeadline = deadline
    let clock = self.clock
    s.timer = Task { [weak self] in
      await clock.sleep(untilNanoseconds: deadline.nanoseconds)
      guard !Task.isCancelled else { return }
      self?.fire()
    }
  }
}
