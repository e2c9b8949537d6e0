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
  case done
}
