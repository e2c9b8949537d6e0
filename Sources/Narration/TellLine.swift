/// `/tell NAME[,NAME] text` in the front's chat line (and headless `tell NAME[,NAME] text`),
/// read against the names of the others in the room. Names are typed as the people pane shows them (any case, an `@` before one is
/// dropped), spaces included: `/tell mary ann hello` reaches "mary ann" when she is in the
/// room (the longest name that fits wins). A name with a comma goes in quotes
/// (`/tell "smith, jo" hi`). A comma, with or without spaces around it, separates names.
public enum TellLine: Hashable, Sendable {
  /// Not a `/tell`: ordinary chat.
  case notATell
  /// `/tell` without a name or without anything to say.
  case usage
  /// A name nobody in the room has, as typed (without its `@` or quotes).
  case unknown(String)
  /// For these people (names as in the room, in the order typed), saying `text`.
  case tell(names: [String], text: String)

  public static let usageText = "say /tell NAME[,NAME] and what to say"

  /// Reads `line` (the chat line as submitted) against `names`, the others in the room.
  public static func parse(_ line: String, names: [String]) -> TellLine {
    guard let rest = arguments(of: line) else { return .notATell }
    return parse(arguments: rest, names: names)
  }

  /// Reads what follows the word `tell` (names, then what to say) against `names`.
  public static func parse(arguments rest: Substring, names: [String]) -> TellLine {
    var reader = Reader(text: rest, names: names)
    var found: [String] = []
    while true {
      switch reader.name() {
      case .missing: return .usage
      case .unknown(let name): return .unknown(name)
      case .found(let name):
        if !found.contains(name) { found.append(name) }
      case .partial: return .usage
      }
      reader.skipSpaces()
      guard reader.skip(",") else { break }
    }
    var text = reader.remainder
    while let first = text.first, first.isWhitespace { text = text.dropFirst() }
    while let last = text.last, last.isWhitespace { text = text.dropLast() }
    return text.isEmpty ? .usage : .tell(names: found, text: String(text))
  }

  /// Tab in the chat line while a `/tell`'s names are typed: the line with the name being
  /// typed completed (as far as all names that start so agree; a whole name gets a space
  /// after it), or nil when the line is not at a name of a `/tell`.
  public static func complete(_ line: String, names: [String]) -> String? {
    guard let rest = arguments(of: line) else { return nil }
    var reader = Reader(text: rest, names: names)
    while true {
      switch reader.name() {
      case .found:
        reader.skipSpaces()
        // After a whole name and a comma, the next name; else the text (nothing to complete).
        guard reader.skip(",") else { return nil }
      case .partial(let typed, let quoted, let start):
        let matches = names.filter { $0.lowercased().hasPrefix(typed.lowercased()) }
        guard let first = matches.first else { return nil }
        var shared = first
        for other in matches.dropFirst() {
          while !other.lowercased().hasPrefix(shared.lowercased()) { shared.removeLast() }
        }
        let whole = matches.count == 1
        let quotes = quoted || (whole && shared.contains(","))
        var completed = String(line[..<start]) + (quotes ? "\"" : "") + shared
        if whole { completed += quotes ? "\" " : " " }
        return completed
      case .missing, .unknown:
        return nil
      }
    }
  }

  /// What follows `/tell` (nil when the line is no `/tell`).
  private static func arguments(of line: String) -> Substring? {
    guard line.lowercased().hasPrefix("/tell") else { return nil }
    let rest = line.dropFirst("/tell".count)
    guard rest.isEmpty || rest.first == " " else { return nil }
    return rest
  }

  /// Reads names one at a time.
  private struct Reader {
    let text: Substring
    let names: [String]
    var index: Substring.Index

    init(text: Substring, names: [String]) {
      self.text = text
      self.names = names
      index = text.startIndex
    }

    enum Name {
      /// Nothing where a name should be.
      case missing
      /// A name of the room.
      case found(String)
      /// A word that is no name of the room.
      case unknown(String)
      /// The line ends inside a name (there is nothing to say yet; Tab completes it): what
      /// was typed of it, whether in quotes, and where it (its quote) begins.
      case partial(String, quoted: Bool, start: Substring.Index)
    }

    var remainder: Substring { text[index...] }

    mutating func skipSpaces() {
      while index < text.endIndex, text[index] == " " { index = text.index(after: index) }
    }

    mutating func skip(_ character: Character) -> Bool {
      guard index < text.endIndex, text[index] == character else { return false }
      index = text.index(after: index)
      return true
    }

    mutating func name() -> Name {
      skipSpaces()
      _ = skip("@")
      let start = index
      if skip("\"") {
        guard let close = text[index...].firstIndex(of: "\"") else {
          return .partial(String(text[index...]), quoted: true, start: start)
        }
        let typed = String(text[index..<close])
        index = text.index(after: close)
        guard !typed.isEmpty else { return .missing }
        guard let name = names.first(where: { $0.lowercased() == typed.lowercased() }) else {
          return .unknown(typed)
        }
        return .found(name)
      }
      let rest = text[index...]
      let typed = rest.lowercased()
      // The longest name of the room the text starts with, followed by nothing, a space or
      // a comma.
      var best: String?
      for name in names where name.count > (best?.count ?? 0) {
        guard rest.prefix(name.count).lowercased() == name.lowercased() else { continue }
        let after = rest.dropFirst(name.count).first
        if after == nil || after == " " || after == "," { best = name }
      }
      // The line ends where a name (or a longer one) is still being typed.
      let longer = names.contains {
        $0.count > (best?.count ?? 0) && $0.lowercased().hasPrefix(typed)
      }
      if longer { return .partial(String(rest), quoted: false, start: start) }
      if let best {
        index = text.index(index, offsetBy: best.count)
        return .found(best)
      }
      let word = rest.prefix { $0 != " " && $0 != "," }
      if word.isEmpty { return .missing }
      index = word.endIndex
      return .unknown(String(word))
    }
  }
}
