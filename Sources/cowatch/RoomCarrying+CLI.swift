import Logging
import ParticipantRuntime
import RelayTLS
import RoomCarrying
import Rooms
import TCPRelayServer
import WireProtocol

/// The command line's side of carrying rooms: this machine's own relay for `join` (how a
/// participant whose machine runs the room's relay leaves is `RoomLeave`'s).
enum RoomCarrySetup {
  /// This machine's own relay, ready to carry the room (nil with `--no-carry`), with TLS
  /// and the machine's relay certificate (the one `host` uses) unless `tls` is false.
  static func start(options: ParticipantOptions, tls: Bool, command: String)
    async throws(CommandFailure) -> StandbyRelay?
  {
    guard !options.noCarry else { return nil }
    // Before the relay makes its logger: with the front, logs must not reach the screen.
    ParticipantRun.bootstrapLogs(options)
    let identity: RelayIdentity?
    do {
      identity = tls ? try RelayIdentity.loadOrCreate(in: StatePaths.directory()) : nil
    } catch {
      throw CommandFailure(command, error.description)
    }
    let context = try RelayTLSOptions.context(identity, command: command)
    do {
      // It carries this person's room and no other: a hello for another name, once it runs
      // the room, is refused in words (as the host's relay does).
      var configuration = RelayConfiguration()
      configuration.onlyRoom = options.room
      // Carrying the room on, it carries its lent copies as the host's relay did.
      configuration.tunnels = .host
      return try await StandbyRelay.start(
        port: options.carryPort, tls: context, fingerprint: identity?.fingerprint,
        configuration: configuration, logger: Logger(label: "cowatch.carry"))
    } catch {
      throw CommandFailure(
        command, "cannot listen to carry the room: \(error.description) (--no-carry does without)")
    }
  }
}
