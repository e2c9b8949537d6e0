import Clocks
import Foundation
import LineFraming
import Logging
import NIOCore
import NIOPosix
import PlaybackCoordination
import Synchronization

/// A real player: mpv, started by Cowatch and driven over its JSON IPC socket, as a
/// ``PlayerDriver``. Every decision is ``MpvPlaybackMachine``'s; this class only starts
/// mpv, carries lines both ways and wakes the machine when it asks.
///
/// `observe(at:)` never blocks: it answers from the machine's model of mpv's clock, which
/// polled reads of mpv's audio clock keep up to date.
public final class MpvPlayer: PlayerDriver {
  private struct State {
    var machine: MpvPlaybackMachine
    var channel: (any Channel)?
    var wake: Scheduled<Void>?
    var wakeAt: LocalInstant?
    /// Direct property reads (``property(_:)``) waiting for mpv's reply, by request id.
    var queries: [Int: CheckedContinuation<MpvReply?, Never>] = [:]
    var nextQuery = 1_000_000_000
    /// ``stop()`` asked mpv to quit: its going is no news.
    var stopping = false
  }

  private let state: Mutex<State>
  private let resolver: @Sendable (ItemID) -> String?
  private let fileOptions: @Sendable (ItemID) -> MpvFileOptions
  private let extractor: @Sendable (String) -> Bool
  private let clock: any SessionClock
  private let process: Process
  private let socketDirectory: URL
  private let logger: Logger
  private let eventLoop: any EventLoop

  private init(
    process: Process, socketDirectory: URL, channel: any Channel,
    resolver: @escaping @Sendable (ItemID) -> String?,
    fileOptions: @escaping @Sendable (ItemID) -> MpvFileOptions,
    extractor: @escaping @Sendable (String) -> Bool, clock: any SessionClock, logger: Logger,
    configuration: MpvPlaybackMachine.Configuration
  ) {
    self.fileOptions = fileOptions
    self.extractor = extractor
    self.process = process
    self.socketDirectory = socketDirectory
    self.resolver = resolver
    self.clock = clock
    self.logger = logger
    self.eventLoop = channel.eventLoop
    state = Mutex(
      State(machine: MpvPlaybackMachine(configuration: configuration), channel: channel))
  }

  /// Starts mpv (idle, paused, with an IPC socket in a private temporary directory) and
  /// connects to it. `resolver` gives the file of an item, `fileOptions` what to open it
  /// with (a lent item's subtitle and read-ahead); `extractor` says whether
  /// yt-dlp may read a link (only a trusted site's: never, unless given); `arguments` are passed to mpv
  /// after Cowatch's own (e.g. `--vo=null --ao=null`, or `--vo=tct`). `terminalLog`: a
  /// file for what mpv writes to its terminal.
  public static func launch(
    executable: String = "mpv", arguments: [String] = [],
    resolver: @escaping @Sendable (ItemID) -> String?,
    fileOptions: @escaping @Sendable (ItemID) -> MpvFileOptions = { _ in .init() },
    extractor: @escaping @Sendable (String) -> Bool = { _ in false },
    clock: any SessionClock = MonotonicClock(),
    logger: Logger = Logger(label: "cowatch.mpv"), timeout: Double = 10,
    configuration: MpvPlaybackMachine.Configuration = .init(), videoTerminal: String? = nil,
    terminalLog: String? = nil
  ) async throws(MpvError) -> MpvPlayer {
    guard let path = Self.find(executable) else { throw .notInstalled(executable) }
    // A terminal video output (`--vo=tct`) draws on mpv's standard output: the terminal
    // given for it (another pane), never the one Cowatch's front owns.
    var output = FileHandle.nullDevice
    if let videoTerminal {
      guard let handle = FileHandle(forWritingAtPath: videoTerminal) else {
        throw .cannotStart("cannot open the terminal \(videoTerminal) for the picture")
      }
      output = handle
    }
    // What mpv writes to a terminal, kept (diagnostics, and the tests' way to read its
    // on-screen display, shown on its terminal with `--terminal --term-osd=force`).
    var log = FileHandle.nullDevice
    if let terminalLog {
      guard FileManager.default.createFile(atPath: terminalLog, contents: nil),
        let handle = FileHandle(forWritingAtPath: terminalLog)
      else { throw .cannotStart("cannot write mpv's terminal output to \(terminalLog)") }
      log = handle
      if videoTerminal == nil { output = handle }
    }
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-mpv-\(UInt64.random(in: 0...UInt64.max))")
    do {
      try FileManager.default.createDirectory(
        at: directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    } catch {
      throw .cannotStart("cannot create \(directory.path): \(error.localizedDescription)")
    }
    let socket = directory.appendingPathComponent("ipc").path
    // mpv outlives a participant killed by a signal (a closed terminal, SIGKILL) unless it
    // watches for that itself: a tiny script quits it once Cowatch's process is gone.
    let watcher = directory.appendingPathComponent("quit-with-cowatch.lua")
    let script = """
      local parent = "/proc/\(getpid())/stat"
      mp.add_periodic_timer(0.5, function()
        local f = io.open(parent, "r")
        if f == nil then mp.command("quit") else f:close() end
      end)
      """
    try? script.write(to: watcher, atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments =
      [
        "--idle=yes", "--input-ipc-server=\(socket)", "--no-terminal", "--keep-open=yes",
        "--pause", "--audio-pitch-correction=no", "--hr-seek=yes", "--force-window=no",
        "--audio-fallback-to-null=yes", "--script=\(watcher.path)",
        "--really-quiet",
      ] + arguments
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = log
    do {
      try await Self.run(process)
    } catch {
      try? FileManager.default.removeItem(at: directory)
      throw .cannotStart("\(path): \(error.localizedDescription)")
    }
    func giveUp(_ error: MpvError) -> MpvError {
      if process.isRunning { process.terminate() }
      try? FileManager.default.removeItem(at: directory)
      return error
    }
    // mpv creates its socket once it is up.
    let deadline = clock.nanoseconds() + Int64(timeout * 1e9)
    while !FileManager.default.fileExists(atPath: socket) {
      guard process.isRunning else {
        throw giveUp(.cannotStart("mpv exited at once (status \(process.terminationStatus))"))
      }
      guard clock.nanoseconds() < deadline else {
        throw giveUp(.timedOut(what: "mpv's IPC socket", seconds: timeout))
      }
      await clock.sleep(seconds: 0.01)
    }
    let box = PlayerBox()
    var connected: (any Channel)?
    // mpv makes the socket's file before it listens on it: a connection refused in between
    // is mpv not ready yet (seen on a loaded machine), so it is tried again until the
    // deadline.
    while connected == nil {
      do {
        connected = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
          .channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
              try channel.pipeline.syncOperations.addHandler(
                LineFrameHandler(maximumFrameBytes: 1 << 20))
              try channel.pipeline.syncOperations.addHandler(MpvLineHandler(box: box))
            }
          }
          .connect(unixDomainSocketPath: socket).get()
      } catch {
        guard process.isRunning, clock.nanoseconds() < deadline else {
          throw giveUp(.cannotStart("cannot connect to mpv's IPC socket: \(error)"))
        }
        await clock.sleep(seconds: 0.02)
      }
    }
    guard let channel = connected else { throw giveUp(.cannotStart("no IPC connection")) }
    let player = MpvPlayer(
      process: process, socketDirectory: directory, channel: channel, resolver: resolver,
      fileOptions: fileOptions,
      extractor: extractor,
      clock: clock, logger: logger, configuration: configuration)
    box.player.withLock { $0 = player }
    process.terminationHandler = { [weak player] p in
      player?.lost(
        p.terminationReason == .uncaughtSignal
          ? "mpv was stopped by signal \(p.terminationStatus)"
          : "mpv stopped (status \(p.terminationStatus))")
    }
    // An mpv that reads some command another way is refused now, in one line, rather than
    // failing on it later (a version it cannot name, a build from git, is given a chance).
    if case .string(let text)? = await player.property(.named("mpv-version")) {
      let version = MpvVersion(parsing: text)
      logger.info("mpv: \(text)\(version.map { " (\($0))" } ?? ", version not recognised")")
      if let version, !version.isSupported {
        await player.stop()
        throw .tooOld(path: path, found: version)
      }
    }
    player.apply { $0.start() }
    return player
  }

  /// mpv's process id (to signal it, as a person might).
  public var processID: Int32 { process.processIdentifier }

  /// Starts `process` from a thread of its own with no signal blocked. A child inherits the
  /// signal mask of the thread that starts it, and Swift concurrency's threads block nearly
  /// every signal: mpv started from one ignored a plain `kill`, and ctrl-c in its window.
  private static func run(_ process: Process) async throws {
    let result: Result<Void, any Error> = await withCheckedContinuation { continuation in
      Thread.detachNewThread {
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        continuation.resume(returning: Result { try process.run() })
      }
    }
    try result.get()
  }

  /// Quits mpv and removes its socket; nothing is left running.
  public func stop() async {
    let channel = state.withLock { s -> (any Channel)? in
      s.stopping = true
      s.wake?.cancel()
      s.wake = nil
      let c = s.channel
      s.channel = nil
      return c
    }
    if let channel {
      let quit = MpvRequest(id: 0, .quit)
      try? await channel.writeAndFlush(ByteBuffer(string: quit.line)).get()
      try? await channel.close()
    }
    let deadline = clock.nanoseconds() + 2_000_000_000
    while process.isRunning, clock.nanoseconds() < deadline { await clock.sleep(seconds: 0.01) }
    if process.isRunning {
      process.terminate()
      let kill = clock.nanoseconds() + 1_000_000_000
      while process.isRunning, clock.nanoseconds() < kill { await clock.sleep(seconds: 0.01) }
      if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
    }
    try? FileManager.default.removeItem(at: socketDirectory)
  }

  deinit {
    if process.isRunning { process.terminate() }
    try? FileManager.default.removeItem(at: socketDirectory)
  }

  // MARK: - PlayerDriver

  public func perform(_ command: PlayerCommand, at now: LocalInstant) {
    var path: String?
    var options = MpvFileOptions()
    var extractor = false
    // A link needs no file of one's own: mpv opens it (see `LinkItem`).
    if case .load(let item, _) = command {
      path = resolver(item)
      if path != nil { options = fileOptions(item) }
      if path == nil, LinkItem.isLink(item) {
        path = item.rawValue
        extractor = self.extractor(item.rawValue)
      }
    }
    apply { [extractor, options] in
      $0.perform(command, path: path, extractor: extractor, options: options, at: now)
    }
  }

  public func observe(at now: LocalInstant) -> PlayerObservation {
    state.withLock { $0.machine.observation(at: now) }
  }

  public func takeUserActions() -> [PlayerUserAction] {
    state.withLock { $0.machine.takeUserActions() }
  }

  /// Holds mpv paused for `seconds` as if it were starved of input, reported as a stall
  /// (see ``MpvPlaybackMachine/hold(until:at:)``).
  public func hold(seconds: Double) {
    let now = clock.localNow()
    apply { $0.hold(until: now.advanced(bySeconds: seconds), at: now) }
  }

  /// Starts the next scheduled start `seconds` late, as a player slow to start would (see
  /// ``MpvPlaybackMachine/delayNextStart(by:)``).
  public func delayNextStart(by seconds: Double) {
    state.withLock { $0.machine.delayNextStart(by: seconds) }
  }

  /// Whether mpv still runs and its socket is open.
  public var isRunning: Bool {
    process.isRunning && state.withLock { $0.channel != nil && !$0.machine.isLost }
  }

  /// The machine's seek latency as measured, seconds.
  public var seekLatency: Double { state.withLock { $0.machine.seekLatency } }

  /// Reads one of mpv's properties directly (e.g. `time-pos`, to see which frame it
  /// shows); nil if mpv does not answer within a second or has no such value.
  public func property(_ property: MpvProperty) async -> MpvValue? {
    guard let reply = await request(.get(property)), reply.status == .success else { return nil }
    return reply.data
  }

  /// Sends mpv `command` outside the driver's sequence and returns its reply; nil if mpv
  /// does not answer within a second (diagnostics, and tests of how mpv reads a command).
  public func request(_ command: MpvCommand) async -> MpvReply? {
    let id = state.withLock { s -> Int in
      defer { s.nextQuery += 1 }
      return s.nextQuery
    }
    return await withCheckedContinuation { continuation in
      let sent = state.withLock { s -> Bool in
        guard let channel = s.channel else { return false }
        s.queries[id] = continuation
        Self.send(MpvRequest(id: id, command).line, on: channel)
        return true
      }
      guard sent else {
        continuation.resume(returning: nil)
        return
      }
      eventLoop.scheduleTask(in: .seconds(1)) { [weak self] in
        self?.answer(id, with: nil)
      }
    }
  }

  /// Shows `text` on mpv's on-screen display for `seconds` (an empty text takes it down):
  /// the group's notices, for someone watching full screen.
  public func showText(_ text: String, seconds: Double) {
    let milliseconds = text.isEmpty ? 1 : Int((max(0, seconds) * 1000).rounded())
    state.withLock { s in
      // The reply is no news to the machine, which waits on ids of its own (from 1 up).
      let request = MpvRequest(id: 999_999_998, .showText(text, milliseconds: milliseconds))
      Self.send(request.line, on: s.channel)
    }
  }

  /// Sends mpv a command behind the driver's back (diagnostics and benchmarks: a seek
  /// the coordinator must notice and correct, as if someone had done it in mpv).
  public func sendBehindTheDriver(_ command: MpvCommand) {
    state.withLock { s in
      let request = MpvRequest(id: 999_999_999, command)
      Self.send(request.line, on: s.channel)
    }
  }

  private func answer(_ id: Int, with value: MpvReply?) {
    let waiting = state.withLock { $0.queries.removeValue(forKey: id) }
    waiting?.resume(returning: value)
  }

  // MARK: - Plumbing

  fileprivate func received(_ line: [UInt8]) {
    guard let message = MpvMessage.parse(line) else { return }
    if case .reply(let id, let data, let error) = message, id >= 1_000_000_000 {
      answer(id, with: MpvReply(data: data, status: error))
      return
    }
    let now = clock.localNow()
    apply { $0.received(message, at: now) }
  }

  fileprivate func lost(_ why: String) {
    let (waiting, stopping) = state.withLock { s in
      s.machine.lost(why)
      s.wake?.cancel()
      s.wake = nil
      defer { s.queries = [:] }
      return (Array(s.queries.values), s.stopping)
    }
    for continuation in waiting { continuation.resume(returning: nil) }
    if stopping {
      logger.debug("\(why) (asked to quit)")
    } else {
      logger.warning("\(why)")
    }
  }

  private func woke() {
    let now = clock.localNow()
    apply { s in
      s.wake(at: now)
    }
  }

  /// Runs one input of the machine and performs its effects under the lock, so that
  /// requests reach mpv in the order the machine decided them; then re-arms the timer.
  private func apply(_ body: (inout MpvPlaybackMachine) -> [MpvPlaybackMachine.Effect]) {
    state.withLock { s in
      let effects = body(&s.machine)
      for effect in effects where !s.machine.isHolding(effect) {
        switch effect {
        case .send(let request):
          Self.send(request.line, on: s.channel)
        }
      }
      let next = s.machine.nextWake
      guard next != s.wakeAt || s.wake == nil else { return }
      s.wake?.cancel()
      s.wake = nil
      s.wakeAt = next
      guard let next else { return }
      let delay = max(0, next.seconds(since: clock.localNow()))
      s.wake = eventLoop.scheduleTask(in: .nanoseconds(Int64(delay * 1e9))) { [weak self] in
        self?.state.withLock {
          $0.wake = nil
          $0.wakeAt = nil
        }
        self?.woke()
      }
    }
  }

  /// Queues one line for mpv on the channel's event loop, after the current task, never in
  /// place: callers hold the lock, and a write that fails in place (mpv just died) closes
  /// the channel, whose handler reports the loss, which takes the lock again. Tasks run in
  /// the order they were queued, so requests still reach mpv in the machine's order.
  private static func send(_ line: String, on channel: (any Channel)?) {
    guard let channel else { return }
    channel.eventLoop.execute { channel.writeAndFlush(ByteBuffer(string: line), promise: nil) }
  }

  static func find(_ executable: String) -> String? {
    if executable.contains("/") {
      return FileManager.default.isExecutableFile(atPath: executable) ? executable : nil
    }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for dir in path.split(separator: ":") {
      let candidate = "\(dir)/\(executable)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }
}

/// Holds the player for the channel handler, which exists before the player does.
private final class PlayerBox: Sendable {
  let player = Mutex<MpvPlayer?>(nil)
}

/// Hands each line from mpv to the player; a closed socket means mpv is gone.
private final class MpvLineHandler: ChannelInboundHandler, Sendable {
  typealias InboundIn = InboundFrame
  let box: PlayerBox

  init(box: PlayerBox) { self.box = box }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard case .line(let line) = unwrapInboundIn(data) else { return }
    box.player.withLock { $0 }?.received(line)
  }

  func channelInactive(context: ChannelHandlerContext) {
    box.player.withLock { $0 }?.lost("mpv closed its IPC socket")
    context.fireChannelInactive()
  }
}
