/// Who decides in a room: its owner, whether newcomers may enter, and who may move the
/// group's playback. Part of ``GroupState`` so that every replica enforces the same rules
/// (a replica that disagreed about who may pause would disagree about the timeline).
///
/// The first participant to enter a room owns it. When the owner leaves, ownership passes
/// to the participant who has been in the room longest (the first in
/// ``GroupState/participants``, which keeps the order of arrival).
public struct RoomControl: Hashable, Sendable {
  /// Nil only in an empty room.
  public var owner: ParticipantID?
  /// A locked room admits no new participants; those already in it (and those reconnecting
  /// to their kept place) stay.
  public var locked: Bool
  public var playback: PlaybackControl
  /// A play from a paused group starts only once everyone present said ready: otherwise
  /// it asks them (a ``ReadyCheck``), for rooms where someone is always still in the kitchen.
  public var startWhenAllReady: Bool
  /// The owner asked the relay to keep the room when everyone has left, paused where the
  /// group stopped, for the next night (a relay that keeps rooms honours it; see
  /// ``GroupCommand/setKept(_:)``). Unlike the rest, it outlasts the room emptying: that is
  /// when it matters.
  public var kept: Bool

  public init(
    owner: ParticipantID? = nil, locked: Bool = false, playback: PlaybackControl = .everyone,
    startWhenAllReady: Bool = false, kept: Bool = false
  ) {
    self.kept = kept
    self.startWhenAllReady = startWhenAllReady
    self.owner = owner
    self.locked = locked
    self.playback = playback
  }
}

/// Who may play, pause, seek, change the rate, start, switch or end the session.
public enum PlaybackControl: String, Hashable, Sendable, CaseIterable {
  /// Anyone joined (SharePlay's model, and the default).
  case everyone
  /// Only the owner; the others can still step away, catch up, join and leave.
  case owner
}
