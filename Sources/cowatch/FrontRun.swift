import FrontSessions
import Invites
import Media
import ParticipantRuntime
import Participation
import TerminalFront
import WatchNights

/// Runs the interactive terminal front for a participant.
enum FrontRun {
  /// Returns once the person has quit and the client has stopped; throws a one-line
  /// ``CommandFailure`` (after stopping the client) when the terminal cannot be used.
  static func run(
    command: String, client: ParticipantClient, media: LoadedMedia, player: any ShowablePlayer,
    room: String, invite: InviteLink?, hostsRoom: Bool, restartPlayer: PlayerRestart? = nil,
    linkReader: LinkReader? = nil, links: LinkGate? = nil, lending: ItemLending? = nil,
    warnings: [String] = [],
    leave: ParticipantLeave? = nil,
    inviteChanges: AsyncStream<InviteChange>? = nil, lastTime: RoomMemory? = nil
  ) async throws(CommandFailure) {
    let terminal: TerminalSession
    do {
      terminal = try TerminalSession()
    } catch {
      await client.stop()
      // Already one line that suggests --headless.
      throw CommandFailure(line: error.description)
    }
    let session = FrontSession(
      roomName: room, catalog: media.series, inviteLink: invite, hostsRoom: hostsRoom,
      reconnectGiveUpAfter: client.configuration.reconnectGiveUpAfter, warnings: warnings,
      resendWindow: client.configuration.resendWindow,
      lastTime: lastTime?.offer(to: client.configuration.name))
    await FrontRunner(
      client: client, terminal: terminal, player: player, session: session,
      restartPlayer: restartPlayer, linkReader: linkReader, links: links, lending: lending,
      leave: leave,
      inviteChanges: inviteChanges, lastTime: lastTime
    ).run()
  }
}
