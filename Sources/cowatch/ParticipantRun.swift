import Clocks
import Foundation
import FrontSessions
import HeadlessFront
import Invites
import Logging
import ParticipantRuntime
import Participation
import PlaybackCoordination
import PlayerOSD
import RoomCarrying
import RoomCrypto
import TerminalFront
import Transports
import WatchNights
import WireProtocol

/// Runs one participant from the command line: connects, then headless mode or the front.
enum ParticipantRun {
  /// Sends logs to stderr (headless) or to a file (the front owns the screen). Once per
  /// process: `host` calls it before its embedded relay makes its logger.
  static func bootstrapLogs(_ options: ParticipantOptions) {
    guard Logs.claimBootstrap() else { return }
    let level = Logger.Level(rawValue: options.logLevel) ?? .notice
    if options.headless {
      Logs.bootstrap(level: level, file: options.logFile)
    } else {
      // curses owns the screen: nothing may go to stderr.
      Logs.bootstrap(
        level: level, file: options.logFile ?? Logs.defaultFrontLogFile(name: options.name))
    }
  }

  /// Refuses at once, before anything connects, when the front cannot run here.
  static func checkTerminal(_ options: ParticipantOptions) throws(CommandFailure) {
    guard !options.headless else { return }
    do {
      try TerminalSession.check()
    } catch {
      // Already one line that suggests --headless.
      throw CommandFailure(line: error.description)
    }
  }

  /// Runs until the person quits (or, headless, the input ends); the client is stopped
  /// when it returns. Throws a ``CommandFailure`` when it cannot start. `hostsRoom`: the
  /// room's relay runs in this process (`cowatch host`); `leave`: how it leaves then.
  /// `carrier`: this machine's own relay, offered to carry the room; `hostOffer`: what a
  /// host's participant tells its own relay (that its machine runs it), and that relay's
  /// epoch (said to it only).
  static func run(
    command: String, transport: any Transport, options: ParticipantOptions,
    invite: InviteLink? = nil,
    hostsRoom: Bool = false, leave: ParticipantLeave? = nil, carrier: StandbyRelay? = nil,
    hostOffer: (offer: CarryOffer, relayEpoch: String)? = nil,
    inviteChanges: AsyncStream<InviteChange>? = nil, lendsByDefault: Bool = false,
    lendHost: String = "127.0.0.1"
  ) async throws(CommandFailure) {
    bootstrapLogs(options)
    try checkTerminal(options)
    let logger = Logger(label: "cowatch.\(options.name)")
    var warnings: [String] = []
    let media = try MediaSetup.load(command: command, options: options) { warning in
      // Said once: headless mode's log goes to stderr too, unless to a file. The front
      // shows them on its first screen.
      if options.headless { Console.error("cowatch \(command): \(warning)") }
      if !options.headless || options.logFile != nil { logger.warning("\(warning)") }
      warnings.append(warning)
    }
    let clock = MonotonicClock()
    let lending = try await LendSetup.start(
      options: options, media: media, lendsByDefault: lendsByDefault, lendHost: lendHost,
      command: command)
    let prepared = try await MediaSetup.makePlayer(
      command: command, media: media, options: options, clock: clock, lending: lending
    ) { warning in
      if options.headless { Console.error("cowatch \(command): \(warning)") }
      if !options.headless || options.logFile != nil { logger.warning("\(warning)") }
      warnings.append(warning)
    }
    let (player, stopMedia, restartPlayer, showText, linkReader) = (
      prepared.player, prepared.stop, prepared.restart, prepared.showText, prepared.linkReader
    )
    // The group in mpv's picture, for whoever watches it full screen.
    let osd = showText.map { show in
      OSDFeeder(
        mode: options.osd.flatMap(OSDMode.init(rawValue:)) ?? .chat, clock: clock, show: show)
    }
    let observer: (@Sendable (ClientEvent) -> Void)? =
      if let osd { { osd.hear($0) } } else { nil }
    let stopPlayer: @Sendable () async -> Void = {
      osd?.stop()
      await stopMedia()
      await lending?.lender?.endpoint.stop()
    }
    let password = try options.password(command: command)
    let client: ParticipantClient
    do throws(RoomEntrance.Failure) {
      var silence: SecretPrompt.Silence?
      // Echo comes back once the password questions are over, however they end (before
      // the front or the headless loop reads the terminal).
      defer { silence?.restore() }
      client = try await RoomEntrance.enter(
        room: options.room, password: password,
        client: { password in
          var configuration = options.configuration
          configuration.carry = carrier?.offer ?? hostOffer?.offer
          configuration.ownRelayEpoch = carrier?.relayEpoch ?? hostOffer?.relayEpoch
          return ParticipantClient(
            transport: transport, configuration: configuration, player: player,
            clock: clock, password: password, logger: logger,
            observer: observer, carrier: carrier)
        },
        ask: { question in
          // A person at a terminal is asked (again, if it was wrong); headless mode and
          // pipes get the relay's refusal.
          guard !options.headless else { return .cannotAsk }
          return askPassword(question, command: command, silence: &silence)
        })
    } catch {
      await stopPlayer()
      throw CommandFailure(command, error.description)
    }
    osd?.follow(client)
    // The room's memory on this machine: offered to a host, and kept by everyone.
    let remembered = rememberedNight(
      room: options.room, command: command, headless: options.headless, logger: logger,
      warnings: &warnings)
    let keeper = NightKeeper(
      room: options.room, previous: remembered, folder: memoryFolder(), clock: clock,
      problem: { problem in
        if options.headless { Console.error("cowatch \(command): \(problem)") }
        logger.warning("\(problem)")
      })
    keeper.follow(client)
    defer { keeper.stop() }
    // The night as it is when the person quits, before the goodbye changes it (the last
    // look may be a second old).
    let leaving: ParticipantLeave = { client, endedForEveryone in
      keeper.look(at: await client.snapshot())
      if let leave {
        await leave(client, endedForEveryone)
      } else {
        await client.stop()
      }
    }
    let offer = hostsRoom ? remembered : nil
    if let lending, let tunnels = LendSetup.tunnels(over: transport) { lending.useTunnels(tunnels) }
    _ = await lending?.attach(client)
    carrier?.attach(client)
    carrier?.locateRooms(over: transport)
    if options.headless {
      let runner = HeadlessRunner(
        client: client, catalog: media.series, sampleMilliseconds: options.sampleMilliseconds,
        restartPlayer: restartPlayer, linkReader: linkReader, lending: lending, leave: leaving,
        lastTime: offer, write: { Console.line($0) })
      await runner.run(input: Console.inputLines(endOnStopSignals: hostsRoom))
      await stopPlayer()
    } else {
      do {
        try await FrontRun.run(
          command: command, client: client, media: media, player: player, room: options.room,
          invite: invite, hostsRoom: hostsRoom, restartPlayer: restartPlayer,
          linkReader: linkReader, links: prepared.links, lending: lending, warnings: warnings,
          leave: leaving, inviteChanges: inviteChanges, lastTime: offer)
      } catch {
        await stopPlayer()
        throw error
      }
      await stopPlayer()
    }
  }
  /// Where this machine keeps its rooms' memories (`$XDG_STATE_HOME/cowatch/rooms`).
  static func memoryFolder() -> RoomMemoryFolder {
    RoomMemoryFolder(stateDirectory: StatePaths.directory())
  }

  /// The room's memory on this machine, if one can be read; a file that cannot is said
  /// once (and the night writes a good one over it).
  static func rememberedNight(
    room: String, command: String, headless: Bool, logger: Logger, warnings: inout [String]
  ) -> RoomMemory? {
    switch memoryFolder().read(room: room) {
    case .nothing: return nil
    case .memory(let memory): return memory
    case .unreadable(let file, let problem):
      let warning = "the memory of room \(room) (\(file)) is ignored: \(problem)"
      if headless { Console.error("cowatch \(command): \(warning)") }
      logger.warning("\(warning)")
      warnings.append(warning)
      return nil
    }
  }

  /// Asks at the terminal for the room's password until one is typed that can be a
  /// password (or nothing, or nobody is there to answer).
  static func askPassword(
    _ question: RoomEntrance.Question, command: String, silence: inout SecretPrompt.Silence?
  ) -> RoomEntrance.Answer {
    var prompt =
      switch question {
      case .required(let room): "Room \(room) has a password: "
      case .wrong(let room): "Wrong password for room \(room); try again: "
      }
    while true {
      guard let typed = SecretPrompt.read(prompt: prompt, silence: &silence) else {
        return .cannotAsk
      }
      guard !typed.isEmpty else { return .nothing }
      do {
        return .password(try RoomPassword(typed))
      } catch {
        Console.error("cowatch \(command): \(error.description)")
        prompt = "Try again: "
      }
    }
  }

}
