import Clocks
import ParticipantRuntime
import Rooms
import TCPRelayServer
import WireProtocol

/// How a participant leaves when the relay in its own process may run its room (a host's,
/// or a successor's that took the room over): "only me" says goodbye, then hands the room
/// to its first successor and sends everyone there; with nobody to carry it, or "end for
/// everyone", the room closes with the relay.
public enum RoomLeave {
  /// The leave for `relay`. `handedOver` hears whom the room went to, so that a host can
  /// print the link that reaches it there once the terminal is theirs again.
  public static func leave(
    relay: RelayServer, name: String, clock: any SessionClock = MonotonicClock(),
    handedOver: @escaping @Sendable (Successor) -> Void = { _ in }
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
      let deadline = clock.localNow().advanced(bySeconds: 1)
      while clock.localNow() < deadline {
        let gone = rooms.allSatisfy { room in
          !(relay.state(ofRoom: room)?.participants.contains { $0.id == me } ?? false)
        }
        if gone { break }
        await clock.sleep(seconds: 0.01)
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
