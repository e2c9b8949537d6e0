import Participation
import PlaybackCoordination

/// A participant's own relay, ready to carry the room if the room's relay goes: the relay
/// feeds it a copy of the room through the participant's connection, and hands the room
/// to it when its host leaves. The participant's runtime passes on what the relay asks,
/// in order, without waiting.
public protocol RoomCarrier: Sendable {
  /// `groupClock`: the participant's estimate of the room relay's group clock (its
  /// instants are on it), so that the carrier can move them onto its own clock, and the
  /// local time it was read at.
  func perform(_ effect: CarrierEffect, groupClock: ClockOffsetEstimate?, at now: LocalInstant)
  /// The epoch of the carrier's relay: the participant says it runs the relay to that relay
  /// only.
  var relayEpoch: String { get }
}
