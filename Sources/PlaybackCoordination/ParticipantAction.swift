/// One thing a participant can do: the vocabulary headless mode and demo scripts share
/// (their words, `pause`, `seek 12:30`, `switch harbour/s1e3`, are HeadlessFront's), and
/// what ``ActionPerformer`` carries out for one participant.
public enum ParticipantAction: Hashable, Sendable {
  case start(ItemID)
  case join
  /// "Not now" to the session offered: the group stops waiting for this answer.
  case decline
  /// `play`, `pause`, `seek 12:30`, `rate 1.5`, and the relative `seek +10` / `seek -1:00`
  /// and `rate +0.25` / `rate -0.25`, which count from what this participant last asked
  /// for, so that quick repeats add up.
  case playback(PlaybackIntent)
  /// Ask to switch everyone to the next item (asks for confirmation).
  case next
  /// Ask to switch everyone back to the episode before this one (asks for confirmation):
  /// the group missed the end of the last one, or wants it again.
  case previous
  /// Switch everyone to another item: asked first (``ActionQuestion/confirmSwitch(_:)``)
  /// unless `confirmed`, when the person already said yes to a front's own question.
  case switchTo(ItemID, confirmed: Bool = false)
  /// Answer the pending prompt.
  case confirm
  case cancel
  case suspend(SuspensionReason)
  case resume
  case resumeAt(Double)
  case autoAdvance(Bool)
  case say(String)
  /// A short reaction at this moment of the film, to everyone (`react 😂`; bounded: see
  /// ``Reaction``), with where the group is.
  case react(String)
  /// A message to chosen participants only (see ``TellText``).
  case tell(TellText)
  case leave
  case end
  case catalog
  case status
  /// Owner only: `lock` / `unlock` the room to newcomers.
  case lock(Bool)
  /// Owner only: take someone out of the room.
  case remove(PersonRef)
  /// Owner only: `control owner|everyone`, who may move playback.
  case control(PlaybackControl)
  /// Owner only: hand the room to someone.
  case owner(PersonRef)
  /// Start the player again after it quit or crashed (mpv).
  case restartPlayer
  /// The room's shared queue: `queue add SERIES/EPISODE`, `queue remove N`,
  /// `queue move N M`, `queue clear`, `queue play N` (places count from 1, as `status`
  /// lists the queue).
  case queue(QueueAction)
  /// `offset MS`: run this person's player MS milliseconds ahead of the group (negative:
  /// behind), as `--offset` does from the start.
  case offset(Double)
  /// Move this person's player further ahead of the group by `seconds` (negative: behind),
  /// from the offset last set, so that quick presses add up.
  case changeOffset(by: Double)
  /// `lend on|off`: lend this person's copies to members who lack the group's item, or
  /// stop (every grant taken back: a borrower reads elsewhere or steps away); nil: the
  /// other of the two (the front's key).
  case lend(Bool?)
  /// `ready-check`: ask everyone present whether they are ready (see ``ReadyCheck``).
  case readyCheck
  /// `ready` / `not-ready`: this person's own answer, any time; nil: the other of the two
  /// (the front's key).
  case ready(Bool?)
  /// `start-anyway`: the asker (or owner) starts the countdown without the rest.
  case startAnyway
  /// `cancel-check`: the asker (or owner) takes the ready check back.
  case cancelReadyCheck
  /// Owner only: `start-when-ready on|off`, whether a play waits for everyone to be ready.
  case startWhenAllReady(Bool)
  /// Owner only: `keep-room on|off`, whether the relay keeps the room when everyone has
  /// left (for the next night), where the relay keeps rooms.
  case keepRoom(Bool)
  /// `continue`: pick up where the room was left last time this machine was in it (the
  /// item, the position, paused, and the queue), as `cowatch host` offered it. The front's
  /// "yes" to that offer is this action too.
  case continueLastTime
}

/// Whom a message is for.
public enum TellText: Hashable, Sendable {
  /// What follows `tell`, names then text, kept as typed. Names are read against the
  /// room's when performed, as the front's `/tell` reads them (`TellLine`): any case,
  /// `@name`, names with spaces, a name with a comma in quotes, several separated by commas.
  case line(String)
  /// These people, already picked, and the text.
  case to([ParticipantID], String)
}

/// Someone in the room, as a person names them (read against the room when performed) or
/// as a front already knows them.
public enum PersonRef: Hashable, Sendable {
  case named(String)
  case id(ParticipantID)
}

extension ParticipantAction {
  /// What a person did in their player's own window, as the same action a key in the
  /// front would be, so that one performer carries out both. The player runs ahead by the
  /// personal offset: the spot a seek in it names is that much earlier in the group's film.
  public init(_ action: PlayerUserAction, personalOffset: Double) {
    switch action {
    case .pause: self = .playback(.pause)
    case .play: self = .playback(.play(rate: nil))
    case .seek(let to): self = .playback(.seek(to: max(0, to - personalOffset)))
    case .rate(let rate): self = .playback(.setRate(rate))
    }
  }
}
