import Foundation
import GroupSessions
import Participation
import Transports
import Media
import TerminalFront

/// Runs the interactive terminal front for a participant.
enum FrontRun {
  static func run(
    command: String, client: ParticipantClient, media: LoadedMedia, player: SimulatedPlayer,
    room: String, invite: String?
  ) async -> Never {
    let terminal: TerminalSession
    do {
      terminal = try TerminalSession()
    } catch {
      // Already one line that suggests --headless.
      Console.error(error.description)
      await client.stop()
      Foundation.exit(1)
    }
    var session = FrontSession(
      client: client, terminal: terminal, media: media, player: player, room: room, invite: invite)
    await session.run()
    terminal.stop()
    Foundation.exit(0)
  }
}
