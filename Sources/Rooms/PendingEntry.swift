import PlaybackCoordination
import WireProtocol

/// A hello held back until its sender proves it knows the room's password. A class,
/// immutable once made: few connections ever hold one, and inline it would widen every
/// connection's entry in the relay's table by its size.
final class PendingEntry: Sendable {
  let name: String
  let room: String
  let protection: RoomProtection
  let nonce: [UInt8]
  /// The resume key the hello named, for the member it becomes.
  let resumeKey: [UInt8]?
  /// When the challenge went out: the proof's timeout counts from here.
  let challenged: GroupInstant

  init(
    name: String, room: String, protection: RoomProtection, nonce: [UInt8],
    resumeKey: [UInt8]?, challenged: GroupInstant
  ) {
    self.resumeKey = resumeKey
    self.name = name
    self.room = room
    self.protection = protection
    self.nonce = nonce
    self.challenged = challenged
  }
}
