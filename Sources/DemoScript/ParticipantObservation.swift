import Foundation
import ParticipantRuntime
import Participation
import PlaybackCoordination

/// What one participant shows at an instant, as `expect` lines see it.
public struct ParticipantObservation: Hashable, Sendable {
  public var name: String
  /// The group as this participant knows it.
  public var group: GroupState
  /// This participant's id, once welcomed.
  public var me: ParticipantID?
  /// The item and position its player shows, if it has one.
  public var playerItem: ItemID?
  public var playerPosition: Double?
  /// The kind of the prompt waiting for an answer, if any.
  public var prompt: String?
  /// Every notice sentence it has been shown, oldest first.
  public var notices: [String]
  /// Every message it received, as `NAME: TEXT`.
  public var chats: [String]
  public var errors: [String]

  public init(
    name: String, group: GroupState, me: ParticipantID?, playerItem: ItemID? = nil,
    playerPosition: Double? = nil, prompt: String? = nil, notices: [String] = [],
    chats: [String] = [], errors: [String] = []
  ) {
    self.name = name
    self.group = group
    self.me = me
    self.playerItem = playerItem
    self.playerPosition = playerPosition
    self.prompt = prompt
    self.notices = notices
    self.chats = chats
    self.errors = errors
  }

  var participant: Participant? { me.flatMap { group.participant($0) } }

  /// The participant's state in one word (see ``Expectation/State``).
  public var state: Expectation.State {
    guard let session = group.session, let mine = participant, mine.isJoined else { return .none }
    if mine.isSuspended { return .suspended }
    switch session.status {
    case .playing: return .playing
    case .paused: return .paused
    case .waiting: return .waiting
    case .finished: return .finished
    }
  }

  /// The position its player shows on the group's item, if it shows that item.
  public var position: Double? {
    guard let session = group.session, participant?.isJoined == true, playerItem == session.item.id
    else {
      return nil
    }
    return playerPosition
  }
}

/// Checks an expectation against observations. Pure, so tests can check it without a run.
public enum ExpectationEvaluator {
  /// What did not hold, one sentence per failing check and participant; empty if all held.
  /// `lateness`: script seconds between the line's time and now (a loaded machine can run a
  /// check late): a playing group's expected position moves on by it, at the group's rate.
  public static func mismatches(
    _ expectation: Expectation, in views: [ParticipantObservation], lateness: Double = 0
  )
    -> [String]
  {
    var problems: [String] = []
    for check in expectation.checks {
      if case .together(let tolerance) = check {
        let positions = views.map { ($0.name, $0.position) }
        let missing = positions.filter { $0.1 == nil }.map(\.0)
        if !missing.isEmpty {
          problems.append(
            "\(missing.joined(separator: ", ")) show\(missing.count == 1 ? "s" : "") no position")
          continue
        }
        let values = positions.map { ($0.0, $0.1!) }
        let low = values.min { $0.1 < $1.1 }!
        let high = values.max { $0.1 < $1.1 }!
        if high.1 - low.1 > tolerance {
          let list = values.map { "\($0.0) \(ScriptTime.format($0.1))" }.joined(separator: ", ")
          problems.append(
            "players are \(ScriptTime.seconds(high.1 - low.1)) s apart (\(list)), more than ±\(ScriptTime.seconds(tolerance))"
          )
        }
        continue
      }
      for view in views {
        var check = check
        if case .position(let expected, let tolerance) = check, lateness > 0,
          let session = view.group.session, session.status == .playing
        {
          check = .position(expected + lateness * session.playbackRate, tolerance: tolerance)
        }
        if let problem = mismatch(check, view) { problems.append("\(view.name): \(problem)") }
      }
    }
    return problems
  }

  static func mismatch(_ check: Expectation.Check, _ view: ParticipantObservation) -> String? {
    let session = view.group.session
    switch check {
    case .state(let expected):
      let seen = view.state
      return seen == expected ? nil : "state is \(seen.rawValue), expected \(expected.rawValue)"
    case .item(let expected):
      let seen = session?.item.id
      return seen == expected
        ? nil : "item is \(seen?.rawValue ?? "none"), expected \(expected?.rawValue ?? "none")"
    case .position(let expected, let tolerance):
      guard let seen = view.position else { return "shows no position (not watching)" }
      return abs(seen - expected) <= tolerance
        ? nil
        : "position is \(ScriptTime.format(seen)), expected \(ScriptTime.format(expected))±\(ScriptTime.seconds(tolerance))"
    case .together:
      return nil
    case .rate(let expected):
      guard let session else {
        return "no watch session, expected rate \(ScriptTime.seconds(expected))"
      }
      return abs(session.playbackRate - expected) < 1e-9
        ? nil
        : "rate is \(ScriptTime.seconds(session.playbackRate)), expected \(ScriptTime.seconds(expected))"
    case .waitingFor(let expected):
      let seen = view.group.waitingFor
      guard Set(seen) != Set(expected) else { return nil }
      func list(_ names: [String]) -> String {
        names.isEmpty ? "nobody" : names.joined(separator: ", ")
      }
      return "waiting for \(list(seen)), expected \(list(expected))"
    case .prompt(let expected):
      return view.prompt == expected
        ? nil : "prompt is \(view.prompt ?? "none"), expected \(expected ?? "none")"
    case .notice(let text):
      return contains(view.notices, text)
        ? nil : "no notice containing \"\(text)\" (last: \(last(view.notices)))"
    case .chat(let text):
      return contains(view.chats, text)
        ? nil : "no message containing \"\(text)\" (last: \(last(view.chats)))"
    case .error(let text):
      return contains(view.errors, text)
        ? nil : "no error containing \"\(text)\" (last: \(last(view.errors)))"
    case .autoAdvance(let expected):
      guard let mine = view.participant else { return "not in the room" }
      return mine.autoAdvance == expected
        ? nil
        : "auto-advance is \(mine.autoAdvance ? "on" : "off"), expected \(expected ? "on" : "off")"
    }
  }

  private static func contains(_ texts: [String], _ part: String) -> Bool {
    texts.contains { $0.range(of: part, options: .caseInsensitive) != nil }
  }

  private static func last(_ texts: [String]) -> String {
    texts.last.map { "\"\($0)\"" } ?? "none"
  }
}
