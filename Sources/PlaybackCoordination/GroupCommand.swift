/// A request to change the group state, from one participant (or, for room membership and
/// connectivity, from the relay on that participant's behalf).
///
/// Position commands carry the item the originator saw, so that a command meant for one
/// episode is rejected as stale once the group has moved on to another.
public enum GroupCommand: Hashable, Sendable {
  /// Arrive in the room (eligible to join the session). Issued by the relay on hello, with
  /// the program the connection is for.
  case enter(name: String, origin: ParticipantOrigin = .cowatch)
  /// Leave the room. Issued by the relay on quit, disconnect or heartbeat timeout.
  case exit(reason: ExitReason)
  /// Connection lost (`false`) or back (`true`); the participant stays in the room.
  case setConnected(Bool)
  /// Start a new watch session of `item` (replacing the current one, if any); the
  /// originator joins it. Playback starts once the originator has loaded and everyone else
  /// in the room has answered the offer (or the answer timed out).
  case start(series: SeriesInfo, item: ItemID)
  case join
  /// "Not now" to the session offered: the group stops holding for this participant's
  /// answer. They may still join later.
  case decline
  /// Leave the watch session only; stay in the room.
  case leave
  /// End the watch session for everyone.
  case end
  /// Play (resume) at the current position, optionally at a new rate.
  case play(item: ItemID?, rate: Double?)
  /// Pause at `at`, the item time the originator saw.
  case pause(item: ItemID?, at: Double)
  case seek(item: ItemID?, to: Double)
  case setRate(item: ItemID?, rate: Double)
  /// Switch everyone to another item. Manual switches must be `confirmed` by the person
  /// who asked (the front shows "Switch everyone to …?").
  case replace(series: SeriesInfo, item: ItemID, confirmed: Bool)
  /// The originator's player reached the end of `endedItem`: advance if anyone has
  /// auto-advance on. Requests for an item that is no longer current count once.
  case advance(endedItem: ItemID)
  case beginSuspension(SuspensionReason)
  /// End one suspension (or all, if nil); with `proposing`, propose that item time to the
  /// whole group (a seek), otherwise jump back to where the group is.
  case endSuspension(SuspensionReason?, proposing: Double?)
  case setReadiness(Readiness)
  case setAutoAdvance(Bool)
  /// Link and player figures used to schedule coordinated starts and shown to others.
  /// Not a visible change for people (fronts need not show it), but a sequenced change like
  /// any other (kind `.reported`), so that every replica holds the same figures.
  case report(roundTrip: Double, startupLatency: Double, playerOffset: Double?)
  /// Owner only: admit no new participants (`true`) or admit them again.
  case setLocked(Bool)
  /// Owner only: who may move the group's playback.
  case setPlaybackControl(PlaybackControl)
  /// Owner only: hand the room to another participant in it.
  case transferOwnership(to: ParticipantID)
  /// Owner only: take a participant out of the room (the relay closes its connection and
  /// forgets its place, so it cannot resume; to keep it out, lock the room).
  case remove(ParticipantID)
  /// Add `item` of `series` at the end of the room's queue. Like every queue edit, only
  /// for whoever may move the group's playback (``PlaybackControl``).
  case queueAdd(series: SeriesInfo, item: ItemID)
  /// Take the entry numbered `entry` out of the queue.
  case queueRemove(entry: UInt64)
  /// Move the entry numbered `entry` to place `to` (0: first; past the end: last).
  case queueMove(entry: UInt64, to: Int)
  case queueClear
  /// Watch the entry numbered `entry` now: a switch (confirmed by the person who asked,
  /// as any switch is), or a new session when nothing is watched; the entry leaves the
  /// queue.
  case playQueued(entry: UInt64)
  /// Run this participant's own player `seconds` ahead of the group (negative: behind),
  /// within ``Participant/maximumPersonalOffset``.
  case setPersonalOffset(Double)
  /// The key others seal private messages to this participant with (see
  /// ``Participant/sealingKey``).
  case announceSealingKey(String)
  /// This participant's player reads another member's copy of the item (nil: its own, or
  /// none); see ``Participant/lender``.
  case watchFrom(ParticipantID?)
  /// Ask everyone present whether they are ready (a ``ReadyCheck``); the group pauses until
  /// they are. Whoever may move playback may ask; the asker counts as ready.
  case askReady
  /// Say ready to watch, or not (any time, not only when asked).
  case setReadyToWatch(Bool)
  /// The asker (or the owner) starts without waiting for the rest of a ready check.
  case startAnyway
  /// The asker (or the owner) takes a ready check back.
  case cancelReadyCheck
  /// Owner only: a play from a paused group starts only when everyone present is ready
  /// (see ``RoomControl/startWhenAllReady``).
  case setStartWhenAllReady(Bool)
  /// Owner only: ask the relay to keep the room when everyone has left (see
  /// ``RoomControl/kept``); a relay that keeps no rooms refuses it before it is sequenced.
  case setKept(Bool)
}

/// Why a participant left the room.
public enum ExitReason: String, Hashable, Sendable, CaseIterable {
  /// Quit on purpose.
  case quit
  /// Connection closed and not resumed in time.
  case disconnected
  /// Silent past the heartbeat timeout.
  case timedOut
  /// Removed by the relay (limit or protocol error).
  case removed
}
