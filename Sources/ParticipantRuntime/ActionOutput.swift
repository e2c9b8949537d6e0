import Participation
import PlaybackCoordination

/// What performing an action produced, beyond the group changes that arrive as events.
public enum ActionOutput: Sendable {
  /// A question for the person who asked, answered with `confirm` or `cancel`.
  case prompt(ActionQuestion)
  case catalog([SeriesInfo])
  case status(ParticipantSnapshot)
  case error(String)
  /// The relay refused it, in words (the refusal also arrives as a client event, which a
  /// front that shows events says already).
  case refused(String)
  /// A sentence for the person who asked alone: a setting of theirs that is not the
  /// group's changed (lending), so no group change will say so.
  case note(String)
  case done
}
