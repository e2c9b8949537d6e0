import PlaybackCoordination

/// An `expect` line: checks that must hold for each of some participants at a moment of the
/// run (or, to absorb scheduling jitter, at some moment within `grace` after it).
public struct Expectation: Hashable, Sendable {
  public var who: Who
  public var checks: [Check]
  /// How long after its time the expectation may still come true, script seconds; nil for
  /// the runner's default.
  public var grace: Double?
  /// The line's text after `expect`, for the transcript.
  public var summary: String

  public init(who: Who, checks: [Check], grace: Double? = nil, summary: String = "") {
    self.who = who
    self.checks = checks
    self.grace = grace
    self.summary = summary
  }

  /// Whose view is checked.
  public enum Who: Hashable, Sendable, CustomStringConvertible {
    /// Every participant that has arrived by then.
    case all
    case some([String])

    public var description: String {
      switch self {
      case .all: "all"
      case .some(let names): names.joined(separator: ",")
      }
    }
  }

  /// What a participant is in, in one word (`state` checks).
  public enum State: String, Hashable, Sendable, CaseIterable {
    /// The group plays / is paused / waits for someone / stopped at the end.
    case playing, paused, waiting, finished
    /// This participant is joined but suspended (stepped away, stalled).
    case suspended
    /// This participant is in no watch session (none started, left, or ended).
    case none
  }

  public enum Check: Hashable, Sendable, CustomStringConvertible {
    case state(State)
    /// The item the group watches; nil: none.
    case item(ItemID?)
    /// What the participant's player shows, within `tolerance` seconds.
    case position(Double, tolerance: Double)
    /// The players of the participants checked are within `tolerance` of one another.
    case together(tolerance: Double)
    /// The rate the group plays at.
    case rate(Double)
    /// The names the group waits for, in any order; empty: nobody.
    case waitingFor([String])
    /// The prompt the participant must answer; nil: none.
    case prompt(String?)
    /// Some notice the participant has seen so far contains this (case-insensitive).
    case notice(String)
    /// Some message the participant has received contains this, as `NAME: TEXT`.
    case chat(String)
    /// Some error the participant has been shown contains this.
    case error(String)
    case autoAdvance(Bool)

    public var description: String {
      switch self {
      case .state(let s): "state \(s.rawValue)"
      case .item(let item): "item \(item?.rawValue ?? "none")"
      case .position(let p, let t): "position \(ScriptTime.format(p))±\(ScriptTime.seconds(t))"
      case .together(let t): "together ±\(ScriptTime.seconds(t))"
      case .rate(let r): "rate \(ScriptTime.seconds(r))"
      case .waitingFor(let names):
        "waiting-for \(names.isEmpty ? "nobody" : names.joined(separator: ","))"
      case .prompt(let kind): "prompt \(kind ?? "none")"
      case .notice(let text): "notice \"\(text)\""
      case .chat(let text): "chat \"\(text)\""
      case .error(let text): "error \"\(text)\""
      case .autoAdvance(let on): "autoadvance \(on ? "on" : "off")"
      }
    }
  }
}
