import Foundation
import FrontSessions
import GroupSessions
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
    let session = FrontSession(roomName: room, catalog: media.series, invite: invite)
    await FrontRunner(client: client, terminal: terminal, player: player, session: session).run()
    Foundation.exit(0)
  }
}
