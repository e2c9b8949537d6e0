import Narration
import ParticipantRuntime
import PlaybackCoordination

/// The words of headless mode and demo scripts: one line, one ``ParticipantAction``.
extension ParticipantAction {
  /// The words, for help and error messages.
  public static let vocabulary =
    "start SERIES/EPISODE|LINK, join, play, pause, seek TIME|+S|-S, rate R|+D|-D, next, previous, switch SERIES/EPISODE|LINK, confirm, cancel, suspend REASON, resume, resume-at TIME, autoadvance on|off, lend on|off, ready-check, ready, not-ready, start-anyway, cancel-check, start-when-ready on|off, keep-room on|off, continue, say TEXT, react TEXT, tell NAME[,NAME] TEXT, leave, end, catalog, status, lock, unlock, remove NAME, control owner|everyone, owner NAME, restart-player, queue add SERIES/EPISODE|LINK|remove N|move N M|clear|play N, offset MS"

  /// Parses one line. Leading/trailing spaces are ignored; the action word is
  /// case-insensitive.
  public static func parse(_ line: String) throws(ActionParseError) -> ParticipantAction {
    let trimmed = line.trimmingCharacters(in: " \t\r")
    guard !trimmed.isEmpty else { throw .empty }
    let (wordPart, restPart) = trimmed.splitOnce()
    let word = wordPart.lowercased()
    let rest = restPart.trimmingCharacters(in: " \t")
    func noArgument(_ action: ParticipantAction) throws(ActionParseError) -> ParticipantAction {
      guard rest.isEmpty else { throw .unexpectedArgument(word: word, argument: rest) }
      return action
    }
    /// `on` or `off`, nothing else.
    func onOff() throws(ActionParseError) -> Bool {
      switch rest.lowercased() {
      case "on": return true
      case "off": return false
      case "": throw .missingArgument(word: word, expected: "on or off")
      default: throw .badArgument(word: word, argument: rest, expected: "on or off")
      }
    }
    func item() throws(ActionParseError) -> ItemID {
      guard !rest.isEmpty else {
        throw .missingArgument(word: word, expected: "SERIES/EPISODE or a link")
      }
      if LinkItem.isLink(rest) {
        if let problem = LinkItem.problem(with: rest) {
          throw .badArgument(word: word, argument: rest, expected: problem)
        }
        return ItemID(rest)
      }
      let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
      guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else {
        throw .badArgument(
          word: word, argument: rest, expected: "SERIES/EPISODE or an http(s) link")
      }
      return ItemID(rest)
    }
    func time() throws(ActionParseError) -> Double {
      guard !rest.isEmpty else {
        throw .missingArgument(word: word, expected: "a time like 12:30 or 750")
      }
      guard let t = TimeFormat.parse(rest) else {
        throw .badArgument(word: word, argument: rest, expected: "a time like 12:30 or 750")
      }
      return t
    }
    switch word {
    case "start": return .start(try item())
    case "join": return try noArgument(.join)
    case "decline": return try noArgument(.decline)
    case "play": return try noArgument(.playback(.play(rate: nil)))
    case "pause": return try noArgument(.playback(.pause))
    case "seek":
      if let sign = rest.first, sign == "+" || sign == "-" {
        let magnitude = String(rest.dropFirst()).trimmingCharacters(in: " \t")
        guard let t = TimeFormat.parse(magnitude), t.isFinite else {
          throw .badArgument(word: word, argument: rest, expected: "a step like +10 or -1:00")
        }
        return .playback(.seekBy(sign == "+" ? t : -t))
      }
      return .playback(.seek(to: try time()))
    case "rate":
      if let sign = rest.first, sign == "+" || sign == "-" {
        guard let d = Double(String(rest.dropFirst()).trimmingCharacters(in: " \t")), d.isFinite,
          d > 0
        else {
          throw .badArgument(word: word, argument: rest, expected: "a step like +0.25 or -0.25")
        }
        return .playback(.changeRate(by: sign == "+" ? d : -d))
      }
      guard let r = Double(rest), r.isFinite, r > 0 else {
        throw rest.isEmpty
          ? .missingArgument(word: word, expected: "a rate like 1.5")
          : .badArgument(word: word, argument: rest, expected: "a rate like 1.5")
      }
      return .playback(.setRate(r))
    case "next": return try noArgument(.next)
    case "previous": return try noArgument(.previous)
    case "switch": return .switchTo(try item(), confirmed: false)
    case "confirm", "yes": return try noArgument(.confirm)
    case "cancel", "no": return try noArgument(.cancel)
    case "suspend":
      guard !rest.isEmpty else {
        throw .missingArgument(word: word, expected: "a reason, e.g. interrupted")
      }
      return .suspend(SuspensionReason(rest))
    case "resume": return try noArgument(.resume)
    case "resume-at": return .resumeAt(try time())
    case "autoadvance", "auto-advance": return .autoAdvance(try onOff())
    // Alone, the other of the two (as the front's key).
    case "lend": return .lend(rest.isEmpty ? nil : try onOff())
    case "ready-check": return try noArgument(.readyCheck)
    case "ready": return try noArgument(.ready(true))
    case "not-ready": return try noArgument(.ready(false))
    case "ready-toggle": return try noArgument(.ready(nil))
    case "start-anyway": return try noArgument(.startAnyway)
    case "cancel-check": return try noArgument(.cancelReadyCheck)
    case "start-when-ready": return .startWhenAllReady(try onOff())
    case "keep-room": return .keepRoom(try onOff())
    case "say":
      guard !rest.isEmpty else { throw .missingArgument(word: word, expected: "some text") }
      return .say(rest)
    case "react":
      guard !rest.isEmpty else {
        throw .missingArgument(word: word, expected: "an emoji or a few words")
      }
      return .react(rest)
    case "tell":
      guard !rest.splitOnce().1.isEmpty else {
        throw .missingArgument(word: word, expected: "NAME[,NAME] TEXT")
      }
      return .tell(.line(rest))
    case "leave": return try noArgument(.leave)
    case "end": return try noArgument(.end)
    case "queue": return .queue(try QueueAction.parse(rest))
    case "offset":
      let limit = Participant.maximumPersonalOffset * 1000
      guard !rest.isEmpty else {
        throw .missingArgument(word: word, expected: "milliseconds, e.g. 200")
      }
      guard let ms = Double(rest), ms.isFinite, abs(ms) <= limit else {
        throw .badArgument(
          word: word, argument: rest, expected: "milliseconds within ±\(Int(limit))")
      }
      return .offset(ms)
    case "catalog": return try noArgument(.catalog)
    case "status": return try noArgument(.status)
    case "restart-player": return try noArgument(.restartPlayer)
    case "continue": return try noArgument(.continueLastTime)
    case "lock": return try noArgument(.lock(true))
    case "unlock": return try noArgument(.lock(false))
    case "remove", "owner":
      guard !rest.isEmpty else {
        throw .missingArgument(word: word, expected: "a NAME in the room")
      }
      return word == "remove" ? .remove(.named(rest)) : .owner(.named(rest))
    case "control":
      guard let control = PlaybackControl(rawValue: rest.lowercased()) else {
        throw rest.isEmpty
          ? .missingArgument(word: word, expected: "owner or everyone")
          : .badArgument(word: word, argument: rest, expected: "owner or everyone")
      }
      return .control(control)
    default: throw .unknownAction(word)
    }
  }
}

/// Why an action line could not be understood.
public enum ActionParseError: Error, Hashable, Sendable, CustomStringConvertible {
  case empty
  case unknownAction(String)
  case missingArgument(word: String, expected: String)
  case badArgument(word: String, argument: String, expected: String)
  case unexpectedArgument(word: String, argument: String)

  public var description: String {
    switch self {
    case .empty: "empty action"
    case .unknownAction(let w): "unknown action \"\(w)\" (actions: \(ParticipantAction.vocabulary))"
    case .missingArgument(let w, let e): "\"\(w)\" needs \(e)"
    case .badArgument(let w, let a, let e): "\"\(w) \(a)\": expected \(e)"
    case .unexpectedArgument(let w, let a): "\"\(w)\" takes no argument (got \"\(a)\")"
    }
  }
}

extension String {
  func trimmingCharacters(in set: String) -> String {
    var s = Substring(self)
    while let f = s.first, set.contains(f) { s.removeFirst() }
    while let l = s.last, set.contains(l) { s.removeLast() }
    return String(s)
  }

  /// The first word and the rest.
  func splitOnce() -> (String, String) {
    guard let space = firstIndex(where: { $0 == " " || $0 == "\t" }) else { return (self, "") }
    return (String(self[..<space]), String(self[index(after: space)...]))
  }
}

extension QueueAction {
  static func parse(_ text: String) throws(ActionParseError) -> QueueAction {
    let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    let usage = "add SERIES/EPISODE|LINK, remove N, move N M, clear or play N"
    guard let first = words.first else { throw .missingArgument(word: "queue", expected: usage) }
    func place(_ word: String) throws(ActionParseError) -> Int {
      guard let n = Int(word), (1...GroupState.maximumQueueEntries).contains(n) else {
        throw .badArgument(
          word: "queue \(first)", argument: word,
          expected: "a place in the queue, 1 to \(GroupState.maximumQueueEntries)")
      }
      return n
    }
    func arguments(_ count: Int, _ expected: String) throws(ActionParseError) -> [String] {
      let rest = Array(words.dropFirst())
      guard rest.count == count else {
        throw rest.count < count
          ? .missingArgument(word: "queue \(first)", expected: expected)
          : .badArgument(
            word: "queue \(first)", argument: rest.joined(separator: " "),
            expected: count == 0 ? "nothing after it" : expected)
      }
      return rest
    }
    switch first.lowercased() {
    case "add":
      let item = try arguments(1, "SERIES/EPISODE or a link")[0]
      if LinkItem.isLink(item) {
        if let problem = LinkItem.problem(with: item) {
          throw .badArgument(word: "queue add", argument: item, expected: problem)
        }
        return .add(ItemID(item))
      }
      let parts = item.split(separator: "/", omittingEmptySubsequences: false)
      guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty }) else {
        throw .badArgument(
          word: "queue add", argument: item, expected: "SERIES/EPISODE or an http(s) link")
      }
      return .add(ItemID(item))
    case "remove": return .remove(.place(try place(try arguments(1, "a place N")[0])))
    case "move":
      let places = try arguments(2, "two places, N M")
      return .move(.place(try place(places[0])), toPlace: try place(places[1]))
    case "clear":
      _ = try arguments(0, "")
      return .clear
    case "play": return .play(.place(try place(try arguments(1, "a place N")[0])))
    default:
      throw .badArgument(word: "queue", argument: first, expected: usage)
    }
  }
}

extension ParticipantAction {
  /// The action as a headless line or a script writes it (what ``parse(_:)`` reads back).
  public var words: String {
    switch self {
    case .start(let item): "start \(item)"
    case .join: "join"
    case .decline: "decline"
    case .playback(.play(let rate)): rate.map { "play at \(LineTime.seconds($0))" } ?? "play"
    case .playback(.pause): "pause"
    case .playback(.togglePlayback): "play/pause"
    case .playback(.seek(let t)): "seek \(LineTime.format(t))"
    case .playback(.seekBy(let d)): "seek \(d < 0 ? "-" : "+")\(LineTime.format(abs(d)))"
    case .playback(.setRate(let r)): "rate \(LineTime.seconds(r))"
    case .playback(.changeRate(let d)): "rate \(d < 0 ? "-" : "+")\(LineTime.seconds(abs(d)))"
    case .next: "next"
    case .previous: "previous"
    case .switchTo(let item, _): "switch \(item)"
    case .confirm: "confirm"
    case .cancel: "cancel"
    case .suspend(let reason): "suspend \(reason)"
    case .resume: "resume"
    case .resumeAt(let t): "resume-at \(LineTime.format(t))"
    case .autoAdvance(let on): "autoadvance \(on ? "on" : "off")"
    case .lend(let on): on.map { "lend \($0 ? "on" : "off")" } ?? "lend"
    case .readyCheck: "ready-check"
    case .ready(let ready): ready.map { $0 ? "ready" : "not-ready" } ?? "ready-toggle"
    case .startAnyway: "start-anyway"
    case .cancelReadyCheck: "cancel-check"
    case .startWhenAllReady(let on): "start-when-ready \(on ? "on" : "off")"
    case .keepRoom(let on): "keep-room \(on ? "on" : "off")"
    case .say(let text): "say \(text)"
    case .react(let text): "react \(text)"
    case .tell(.line(let arguments)): "tell \(arguments)"
    case .tell(.to(let people, let text)):
      "tell \(people.map(\.rawValue).joined(separator: ",")) \(text)"
    case .leave: "leave"
    case .end: "end"
    case .catalog: "catalog"
    case .status: "status"
    case .lock(let locked): locked ? "lock" : "unlock"
    case .remove(let person): "remove \(person.words)"
    case .control(let control): "control \(control.rawValue)"
    case .owner(let person): "owner \(person.words)"
    case .restartPlayer: "restart-player"
    case .continueLastTime: "continue"
    case .queue(.add(let item)): "queue add \(item)"
    case .queue(.remove(let ref)): "queue remove \(ref.words)"
    case .queue(.move(let ref, let to)): "queue move \(ref.words) \(to)"
    case .queue(.clear): "queue clear"
    case .queue(.play(let ref, _)): "queue play \(ref.words)"
    case .offset(let ms): "offset \(LineTime.seconds(ms))"
    case .changeOffset(let delta):
      "offset \(delta < 0 ? "-" : "+")\(LineTime.seconds(abs(delta) * 1000))"
    }
  }

}

extension PersonRef {
  /// As a line names them.
  public var words: String {
    switch self {
    case .named(let name): name
    case .id(let id): id.rawValue
    }
  }

}

extension QueueRef {
  /// As a line names the entry.
  public var words: String {
    switch self {
    case .place(let place): "\(place)"
    case .entry(let id): "#\(id)"
    }
  }
}

/// Times and numbers as a headless line or a script writes them.
public enum LineTime {
  /// `m:ss` with tenths when they matter (`1:05`, `1:05.5`).
  public static func format(_ seconds: Double) -> String {
    let tenths = (seconds * 10).rounded() / 10
    let whole = tenths.rounded(.down)
    let base = TimeFormat.clock(whole)
    let fraction = Int(((tenths - whole) * 10).rounded())
    return fraction == 0 ? base : "\(base).\(fraction)"
  }

  /// A number without trailing zeros (`0.5`, `3`).
  public static func seconds(_ value: Double) -> String {
    let r = (value * 1000).rounded() / 1000
    return r == r.rounded() ? "\(Int(r))" : "\(r)"
  }
}
