/// The chat line's commands, and what a line that looks like another one is. Chat programs
/// differ here; Cowatch does what IRC clients do: an unknown `/word` is never sent (a
/// mistyped `/tel bob …` would otherwise reach everyone, the opposite of what was meant),
/// and `//` sends a line that really begins with `/`.
public enum ChatCommands {
  /// The commands the chat line knows, without their slash.
  public static let known = ["me", "tell", "play", "queue"]

  /// Why `line` cannot go as chat: it begins with a `/word` that is no command. Nil for a
  /// command, a `//` line and anything else (`/ shrug`, `:/`).
  public static func unknownCommand(in line: String) -> String? {
    guard line.hasPrefix("/"), !line.hasPrefix("//") else { return nil }
    let word = line.dropFirst().prefix { $0 != " " }
    guard let first = word.first, first.isLetter else { return nil }
    let name = word.lowercased()
    guard !known.contains(name) else { return nil }
    let guess = known.min { distance(name, $0) < distance(name, $1) }
      .flatMap { distance(name, $0) <= 2 ? $0 : nil }
    let meant = guess.map { " — did you mean /\($0)?" } ?? ""
    return
      "/\(word) is not a command\(meant) (/me, /tell NAME …, /play LINK, /queue LINK; start with // to send a line that begins with /)"
  }

  /// The text a `//…` line sends: the line without its first slash.
  public static func literal(_ line: String) -> String? {
    guard line.hasPrefix("//"), line.count > 2 else { return nil }
    return String(line.dropFirst())
  }

  /// Edit distance (insertions, deletions, substitutions) between two short words.
  static func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    var row = Array(0...b.count)
    for i in 1...max(a.count, 1) where !a.isEmpty {
      var previous = row[0]
      row[0] = i
      for j in 1...max(b.count, 1) where !b.isEmpty {
        let kept = row[j]
        row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
        previous = kept
      }
    }
    return row[b.count]
  }
}
