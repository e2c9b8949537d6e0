import Logging
import ParticipantRuntime
import RelayTLS
import RoomCarrying
import Rooms
import TCPRelayServer
import WireProtocol

/// The command line's side of carrying rooms: this machine's own relay for `join`, and how
/// a participant whose machine runs the room's relay (a host's, or a successor's that took
/// the room over) leaves.
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
      return try await StandbyRelay.start(
        port: options.carryPort, tls: context, fingerprint: identity?.fingerprint,
        configuration: configuration, logger: Logger(label: "cowatch.carry"))
    } catch {
      throw CommandFailure(
        command, "cannot listen to carry the room: \(error.description) (--no-carry does without)")
    }
  }

  /// How the participant leaves when `relay` (in this process) may run its room: "only me"
  /// says goodbye, then hands the room to its first successor and sends everyone there;
  /// with nobody to carry it, or "end for everyone", the room closes with the relay.
  ///
  /// `handedOver` hears whom the room went to, so that the host can print the link that
  /// reaches it there once the terminal is theirs again.
  static func leave(
    relay: RelayServer, name: String, handedOver: @escaping @Sendable (Successor) -> Void = { _ in }
  ) -> ParticipantLeave {
    { client, endedForEveryone in
      let rooms = relay.runtime.roomNames
      guard !rooms.isEmpty else {
        await client.stop()
        return
      }
      let closing = "\(name) closed the room (it ran on their machine)"
      if endedForEveryone
        || rooms.allSatisfy({ !relay.runtime.successors(ofRoom: $0).contains(where: \.canCarry) })
      {
        // Said first, so that the others read that the room closed, not who owns it next.
        await relay.close(because: closing)
        await client.stop()
        return
      }
      let me = await client.participantID
      await client.stop()
      // The goodbye is on its way over loopback: the room hands over without this member
      // (the others read that they left), once the relay has taken it (a second at most).
      for _ in 0..<100 {
        let gone = rooms.allSatisfy { room in
          !(relay.state(ofRoom: room)?.participants.contains { $0.id == me } ?? false)
        }
        if gone { break }
        try? await Task.sleep(nanoseconds: 10_000_000)
      }
      let moved = relay.runtime.handOver()
      if moved.isEmpty {
        await relay.close(because: closing)
      } else {
        moved.first.map { handedOver($0.to) }
        await relay.stop()
      }
    }
  }
}
