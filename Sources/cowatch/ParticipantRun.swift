import Foundation
import GroupSessions
import Logging
import PlaybackCoordination

/// Runs one participant from the command line: connects, then headless mode or the front.
enum ParticipantRun {
  static func run(
    command: String, transport: any Transport, options: ParticipantOptions, invite: String? = nil
  ) async {
    let level = Logger.Level(rawValue: options.logLevel) ?? .notice
    if options.headless {
      Logs.bootstrap(level: level, file: options.logFile)
    } else {
      // curses owns the screen: nothing may go to stderr.
      Logs.bootstrap(level: level, file: options.logFile ?? Logs.defaultFrontLogFile())
    }
    let media = MediaSetup.load(command: command)
    let player = MediaSetup.makePlayer(media: media, options: options)
    let client = ParticipantClient(
      transport: transport, configuration: options.configuration, player: player,
      logger: Logger(label: "cowatch.\(options.name)"))
    do {
      try await client.start()
    } catch {
      CommandFailure.exit(command, error.description)
    }
    if options.headless {
      let runner = HeadlessRunner(
        client: client, catalog: media.series, sampleMilliseconds: options.sampleMilliseconds,
        write: { Console.line($0) })
      await runner.run(input: Console.inputLines())
    } else {
      await FrontRun.run(
        command: command, client: client, media: media, player: player, room: options.room,
        invite: invite)
    }
  }
}
