import HeadlessFront
import Media
import Narration
import ParticipantRuntime
import Participation
import PlaybackCoordination

/// Reads a demo script line by line, checking everything before anything runs. Errors name
/// the line.
struct ScriptParser {
  let fileName: String
  let catalog: Catalog?

  private var script: DemoScript
  private var lineNumber = 0
  private var lastTime: (time: Double, line: Int)?
  private var timedSteps: [ScriptStep] = []

  static let participantOptions =
    "autoadvance=on|off, drift=±PPMppm, latency=DURATION, load=DURATION, stall-chance=PER-SECOND, stall-length=DURATION[-DURATION], seed=N, arrives-at=TIME"
  static let relayOptions =
    "rebuffer-timeout=DURATION, suspension-timeout=DURATION, first-load-timeout=DURATION"
  static let reservedNames: Set<String> = ["all", "nobody", "none", "expect"]

  init(fileName: String, catalog: Catalog?) {
    self.fileName = fileName
    self.catalog = catalog
    self.script = DemoScript(fileName: fileName)
  }

  mutating func parse(_ text: String) throws(ScriptError) -> DemoScript {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    for (index, raw) in lines.enumerated() {
      lineNumber = index + 1
      let line = Self.trim(String(raw))
      if line.isEmpty || line.hasPrefix("#") { continue }
      do {
        try parseLine(line)
      } catch {
        throw ScriptError(fileName: fileName, line: lineNumber, problem: error)
      }
    }
    script.steps = mergeArrivals()
    return script
  }

  // MARK: - Lines

  private mutating func parseLine(_ line: String) throws(ScriptProblem) {
    let (word, rest) = Self.splitWord(line)
    switch word.lowercased() {
    case "speed":
      guard !rest.isEmpty else {
        throw .missingArgument(directive: "speed", expected: "a number from 0.1 to 50")
      }
      guard let speed = Double(rest), speed.isFinite, (0.1...50).contains(speed) else {
        throw .badSpeed(rest)
      }
      script.speed = speed
    case "relay":
      try parseRelay(rest)
    case "participant":
      try parseParticipant(rest)
    case "at":
      try parseStep(rest, line: line)
    default:
      throw .unknownDirective(word)
    }
  }

  private mutating func parseRelay(_ rest: String) throws(ScriptProblem) {
    let options = try Self.options(rest)
    guard !options.isEmpty else {
      throw .missingArgument(directive: "relay", expected: Self.relayOptions)
    }
    for (key, value) in options {
      func duration() throws(ScriptProblem) -> Double {
        guard let d = ScriptTime.parseDuration(value), d > 0 else {
          throw .badOptionValue(option: key, value: value, expected: "a positive duration like 5s")
        }
        return d
      }
      switch key {
      case "rebuffer-timeout": script.relay.rebufferTimeout = try duration()
      case "suspension-timeout": script.relay.suspensionTimeout = try duration()
      case "first-load-timeout": script.relay.firstLoadTimeout = try duration()
      default: throw .unknownOption(key, allowed: Self.relayOptions)
      }
    }
  }

  private mutating func parseParticipant(_ rest: String) throws(ScriptProblem) {
    let (name, optionText) = Self.splitWord(rest)
    guard !name.isEmpty else {
      throw .missingArgument(directive: "participant", expected: "a name")
    }
    guard Self.isValidName(name) else { throw .badParticipantName(name) }
    if let existing = script.participant(name) {
      throw .duplicateParticipant(name, firstLine: existing.line)
    }
    var declaration = ParticipantDeclaration(
      name: name, line: lineNumber,
      player: ParticipantDeclaration.defaultPlayer(seed: ParticipantDeclaration.seed(for: name)))
    for (key, value) in try Self.options(optionText) {
      func duration() throws(ScriptProblem) -> Double {
        guard let d = ScriptTime.parseDuration(value) else {
          throw .badOptionValue(option: key, value: value, expected: "a duration like 50ms or 2s")
        }
        return d
      }
      switch key {
      case "autoadvance", "auto-advance":
        switch value.lowercased() {
        case "on": declaration.autoAdvance = true
        case "off": declaration.autoAdvance = false
        default: throw .badOptionValue(option: key, value: value, expected: "on or off")
        }
      case "drift":
        var number = value.lowercased()
        if number.hasSuffix("ppm") { number.removeLast(3) }
        if number.hasPrefix("+") { number.removeFirst() }
        guard let ppm = Double(number), ppm.isFinite, abs(ppm) <= 100_000 else {
          throw .badOptionValue(
            option: key, value: value, expected: "parts per million like +200ppm (within ±100000)")
        }
        declaration.player.driftPPM = ppm
      case "latency":
        let d = try duration()
        declaration.player.playLatency = d...d
        declaration.player.seekLatency = d...d
      case "load":
        let d = try duration()
        declaration.player.loadLatency = d...d
      case "stall-chance":
        guard let chance = Double(value), chance.isFinite, (0...10).contains(chance) else {
          throw .badOptionValue(
            option: key, value: value, expected: "stalls per second of playing, like 0.02")
        }
        declaration.player.stallsPerSecond = chance
      case "stall-length":
        let parts = value.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        let bounds = parts.compactMap { ScriptTime.parseDuration($0) }
        guard (1...2).contains(parts.count), bounds.count == parts.count,
          bounds[0] <= bounds[bounds.count - 1]
        else {
          throw .badOptionValue(
            option: key, value: value, expected: "a duration like 3s or a range like 1s-4s")
        }
        declaration.player.stallDuration = bounds[0]...bounds[bounds.count - 1]
      case "seed":
        guard let seed = UInt64(value) else {
          throw .badOptionValue(option: key, value: value, expected: "a whole number")
        }
        declaration.player.seed = seed
      case "arrives-at":
        guard let t = TimeFormat.parse(value) else { throw .malformedTime(value) }
        declaration.arrivesAt = t
      default:
        throw .unknownOption(key, allowed: Self.participantOptions)
      }
    }
    script.participants.append(declaration)
  }

  private mutating func parseStep(_ rest: String, line: String) throws(ScriptProblem) {
    let (timeText, afterTime) = Self.splitWord(rest)
    guard !timeText.isEmpty else {
      throw .missingArgument(directive: "at", expected: "a time and what happens")
    }
    guard let time = TimeFormat.parse(timeText) else { throw .malformedTime(timeText) }
    if let lastTime, time < lastTime.time {
      throw .timeGoesBackwards(time: time, previous: lastTime.time, previousLine: lastTime.line)
    }
    let (subject, what) = Self.splitWord(afterTime)
    guard !subject.isEmpty else {
      throw .missingArgument(
        directive: "at \(timeText)", expected: "a participant and an action, or expect")
    }
    let kind: ScriptStep.Kind
    if subject.lowercased() == "expect" {
      kind = .expect(try parseExpectation(what, at: time))
    } else {
      let name = subject
      try requireArrived(name, at: time)
      let (word, argument) = Self.splitWord(what)
      if word.lowercased() == "stall" {
        guard !argument.isEmpty else {
          throw .missingArgument(directive: "stall", expected: "a duration like 4s")
        }
        guard let d = ScriptTime.parseDuration(argument), d > 0 else {
          throw .badOptionValue(
            option: "stall", value: argument, expected: "a positive duration like 4s")
        }
        kind = .stall(participant: name, duration: d)
      } else {
        let action: ParticipantAction
        do {
          action = try ParticipantAction.parse(what)
        } catch {
          throw .badAction(participant: name, error)
        }
        try check(action)
        kind = .act(participant: name, action: action)
      }
    }
    lastTime = (time, lineNumber)
    timedSteps.append(ScriptStep(time: time, line: lineNumber, text: line, kind: kind))
  }

  /// Items must be in the catalog (when one is known); `tell` names must be declared.
  private func check(_ action: ParticipantAction) throws(ScriptProblem) {
    switch action {
    case .start(let item), .switchTo(let item, _):
      if let catalog, catalog.item(item) == nil { throw .unknownItem(item) }
    case .tell(.line(let arguments)):
      let declared = script.participants.map(\.name)
      switch TellLine.parse(arguments: Substring(arguments), names: declared) {
      case .unknown(let name): throw .unknownParticipant(name)
      case .usage, .notATell:
        throw .missingArgument(directive: "tell", expected: "NAME[,NAME] and what to say")
      case .tell: break
      }
    default:
      break
    }
  }

  private func requireArrived(_ name: String, at time: Double) throws(ScriptProblem) {
    guard let declaration = script.participant(name) else { throw .unknownParticipant(name) }
    guard declaration.arrivesAt <= time else {
      throw .beforeArrival(participant: name, arrivesAt: declaration.arrivesAt)
    }
  }

  // MARK: - Expectations

  private func parseExpectation(_ text: String, at time: Double) throws(ScriptProblem)
    -> Expectation
  {
    var tokens = try Self.tokenize(text)[...]
    guard let whoToken = tokens.popFirst() else {
      throw .missingArgument(
        directive: "expect", expected: "who (all, or NAME[,NAME]) and what to check")
    }
    let who: Expectation.Who
    if whoToken.text.lowercased() == "all" && !whoToken.quoted {
      who = .all
    } else {
      let names = whoToken.text.split(separator: ",").map(String.init)
      for name in names { try requireArrived(name, at: time) }
      who = .some(names)
    }
    var checks: [Expectation.Check] = []
    var grace: Double?
    while let token = tokens.popFirst() {
      let word = token.text.lowercased()
      func argument(_ expected: String) throws(ScriptProblem) -> Token {
        guard let next = tokens.popFirst() else {
          throw .missingCheckArgument(check: word, expected: expected)
        }
        return next
      }
      /// A tolerance attached (`1:05±0.5`) or as the next token (`±0.5`), if any.
      func tolerance(after value: inout String, default fallback: Double) throws(ScriptProblem)
        -> Double
      {
        var toleranceText: String?
        if let range = value.range(of: "±") ?? value.range(of: "+-") {
          toleranceText = String(value[range.upperBound...])
          value = String(value[..<range.lowerBound])
        } else if let next = tokens.first, next.text.hasPrefix("±") || next.text.hasPrefix("+-") {
          tokens.removeFirst()
          toleranceText = String(next.text.drop { $0 == "±" || $0 == "+" || $0 == "-" })
        }
        guard let toleranceText else { return fallback }
        guard let t = ScriptTime.parseDuration(toleranceText) else {
          throw .badCheckArgument(
            check: word, argument: "±\(toleranceText)", expected: "a tolerance like ±0.5")
        }
        return t
      }
      switch word {
      case "state":
        let a = try argument("one of \(Self.stateWords)")
        guard let state = Expectation.State(rawValue: a.text.lowercased()) else {
          throw .badCheckArgument(
            check: word, argument: a.text, expected: "one of \(Self.stateWords)")
        }
        checks.append(.state(state))
      case "item":
        let a = try argument("SERIES/EPISODE or none")
        if a.text.lowercased() == "none" {
          checks.append(.item(nil))
        } else {
          let parts = a.text.split(separator: "/", omittingEmptySubsequences: false)
          guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty }) else {
            throw .badCheckArgument(
              check: word, argument: a.text, expected: "SERIES/EPISODE or none")
          }
          let item = ItemID(a.text)
          if let catalog, catalog.item(item) == nil { throw .unknownItem(item) }
          checks.append(.item(item))
        }
      case "position":
        var value = try argument("a time like 1:05±0.5").text
        let t = try tolerance(after: &value, default: Self.defaultPositionTolerance)
        guard let p = TimeFormat.parse(value) else {
          throw .badCheckArgument(check: word, argument: value, expected: "a time like 1:05±0.5")
        }
        checks.append(.position(p, tolerance: t))
      case "together", "in-sync":
        if case .some(let names) = who, names.count < 2 { throw .togetherNeedsTwo }
        var value = ""
        checks.append(
          .together(tolerance: try tolerance(after: &value, default: Self.defaultTogetherTolerance))
        )
      case "rate":
        let a = try argument("a rate like 1.5")
        guard let r = Double(a.text), r.isFinite, r > 0 else {
          throw .badCheckArgument(check: word, argument: a.text, expected: "a rate like 1.5")
        }
        checks.append(.rate(r))
      case "waiting-for":
        let a = try argument("NAME[,NAME] or nobody")
        if a.text.lowercased() == "nobody" {
          checks.append(.waitingFor([]))
        } else {
          let names = a.text.split(separator: ",").map(String.init)
          for name in names where script.participant(name) == nil {
            throw .unknownParticipant(name)
          }
          checks.append(.waitingFor(names))
        }
      case "prompt":
        let a = try argument("a prompt kind like confirm-switch, or none")
        checks.append(.prompt(a.text.lowercased() == "none" ? nil : a.text))
      case "notice", "chat", "error":
        let a = try argument("a text, e.g. \"bob paused\"")
        guard !a.text.isEmpty else {
          throw .badCheckArgument(
            check: word, argument: "\"\"", expected: "a text that is not empty")
        }
        checks.append(
          word == "notice" ? .notice(a.text) : word == "chat" ? .chat(a.text) : .error(a.text))
      case "autoadvance", "auto-advance":
        let a = try argument("on or off")
        switch a.text.lowercased() {
        case "on": checks.append(.autoAdvance(true))
        case "off": checks.append(.autoAdvance(false))
        default: throw .badCheckArgument(check: word, argument: a.text, expected: "on or off")
        }
      case "within":
        let a = try argument("a duration like 2s")
        guard let d = ScriptTime.parseDuration(a.text) else {
          throw .badCheckArgument(check: word, argument: a.text, expected: "a duration like 2s")
        }
        grace = d
      default:
        throw .unknownCheck(token.text)
      }
    }
    guard !checks.isEmpty else { throw .noChecks }
    return Expectation(who: who, checks: checks, grace: grace, summary: text)
  }

  static let stateWords = Expectation.State.allCases.map(\.rawValue).joined(separator: ", ")
  static let defaultPositionTolerance = 0.5
  static let defaultTogetherTolerance = 0.25

  // MARK: - Arrivals

  /// The timed steps with each participant's arrival inserted before anything else at its
  /// time.
  private func mergeArrivals() -> [ScriptStep] {
    let arrivals = script.participants.map {
      ScriptStep(
        time: $0.arrivesAt, line: $0.line, text: "\($0.name) arrives",
        kind: .arrive(participant: $0.name))
    }
    let all =
      arrivals.enumerated().map { (step: $0.element, rank: 0, order: $0.offset) }
      + timedSteps.enumerated().map { (step: $0.element, rank: 1, order: $0.offset) }
    return all.sorted { a, b in
      if a.step.time != b.step.time { return a.step.time < b.step.time }
      if a.rank != b.rank { return a.rank < b.rank }
      return a.order < b.order
    }.map(\.step)
  }

  // MARK: - Words

  struct Token: Hashable {
    var text: String
    var quoted: Bool
  }

  /// Splits on spaces; `"..."` is one token (`\"` inside for a quote).
  static func tokenize(_ text: String) throws(ScriptProblem) -> [Token] {
    var tokens: [Token] = []
    var current = ""
    var inQuote = false
    var wasQuoted = false
    var escaped = false
    for c in text {
      if inQuote {
        if escaped {
          current.append(c)
          escaped = false
        } else if c == "\\" {
          escaped = true
        } else if c == "\"" {
          inQuote = false
        } else {
          current.append(c)
        }
      } else if c == "\"" {
        inQuote = true
        wasQuoted = true
      } else if c == " " || c == "\t" {
        if !current.isEmpty || wasQuoted { tokens.append(Token(text: current, quoted: wasQuoted)) }
        current = ""
        wasQuoted = false
      } else {
        current.append(c)
      }
    }
    if inQuote { throw .unterminatedQuote }
    if !current.isEmpty || wasQuoted { tokens.append(Token(text: current, quoted: wasQuoted)) }
    return tokens
  }

  /// `key=value` words (keys lowercased); an option given twice is an error.
  static func options(_ text: String) throws(ScriptProblem) -> [(String, String)] {
    var seen: Set<String> = []
    var result: [(String, String)] = []
    for word in text.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
      guard let equals = word.firstIndex(of: "=") else {
        throw .badOptionValue(option: String(word), value: "", expected: "KEY=VALUE")
      }
      let key = word[..<equals].lowercased()
      let value = String(word[word.index(after: equals)...])
      guard !value.isEmpty else {
        throw .badOptionValue(option: key, value: "", expected: "a value after =")
      }
      guard seen.insert(key).inserted else { throw .duplicateOption(key) }
      result.append((key, value))
    }
    return result
  }

  static func isValidName(_ name: String) -> Bool {
    (1...32).contains(name.count)
      && name.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "_" }
      && !reservedNames.contains(name.lowercased())
  }

  static func trim(_ s: String) -> String {
    var t = Substring(s)
    while let f = t.first, f == " " || f == "\t" || f == "\r" { t.removeFirst() }
    while let l = t.last, l == " " || l == "\t" || l == "\r" { t.removeLast() }
    return String(t)
  }

  /// The first word and the rest (trimmed).
  static func splitWord(_ s: String) -> (String, String) {
    let t = trim(s)
    guard let space = t.firstIndex(where: { $0 == " " || $0 == "\t" }) else { return (t, "") }
    return (String(t[..<space]), trim(String(t[t.index(after: space)...])))
  }
}
