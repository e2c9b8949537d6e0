import Clocks
import Foundation
import GroupSessions
import HeadlessFront
import Logging
import Participation
import PlaybackCoordination
import RoomCrypto
import TerminalFront
import Transports

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
  /// room's relay runs in this process (`cowatch host`).
  static func run(
    command: String, transport: any Transport, options: ParticipantOptions, invite: String? = nil,
    hostsRoom: Bool = false, beforeLeaving: (@Sendable () async -> Void)? = nil
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
    let (player, stopPlayer, restartPlayer) = try await MediaSetup.makePlayer(
      command: command, media: media, options: options, clock: clock)
    var password = try options.password(command: command)
    var client: ParticipantClient
    do {
      var tries = 0
      var silence: SecretPrompt.Silence?
      // Echo comes back once the password questions are over, however they end (before
      // the front or the headless loop reads the terminal).
      defer { silence?.restore() }
      while true {
        client = ParticipantClient(
          transport: transport, configuration: options.configuration, player: player, clock: clock,
          password: password, logger: logger)
        do {
          try await client.start()
          break
        } catch {
          // A person at a terminal is asked for the room's password (again, if it was
          // wrong); headless mode and pipes get the error.
          tries += 1
          let asks: Bool
          switch error {
          case .passwordRequired: asks = true
          case .refused(.wrongPassword, _): asks = true
          default: asks = false
          }
          if asks, !options.headless, tries <= 3,
            let typed = SecretPrompt.read(
              prompt: error == .passwordRequired(room: options.room)
                ? "Room \(options.room) has a password: "
                : "Wrong password for room \(options.room); try again: ", silence: &silence)
          {
            guard !typed.isEmpty else {
              await stopPlayer()
              throw CommandFailure(command, "no password typed for room \(options.room)")
            }
            do {
              password = try RoomPassword(typed)
              continue
            } catch {
              Console.error("cowatch \(command): \(error.description)")
              continue
            }
          }
          await stopPlayer()
          throw CommandFailure(command, error.description)
        }
      }
    }
    if options.headless {
      let runner = HeadlessRunner(
        client: client, catalog: media.series, sampleMilliseconds: options.sampleMilliseconds,
        restartPlayer: restartPlayer, beforeLeaving: beforeLeaving, write: { Console.line($0) })
      await runner.run(input: Console.inputLines())
      await stopPlayer()
    } else {
      do {
        try await FrontRun.run(
          command: command, client: client, media: media, player: player, room: options.room,
          invite: invite, hostsRoom: hostsRoom, restartPlayer: restartPlayer, warnings: warnings,
          beforeLeaving: beforeLeaving)
      } catch {
        await stopPlayer()
        throw error
      }
      await stopPlayer()
    }
  }
}
