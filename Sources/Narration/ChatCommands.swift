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
    let guess = EditDistance.nearest(to: name, among: known)
    let meant = guess.map { " — did you mean /\($0)?" } ?? ""
    return
      "/\(word) is not a command\(meant) (/me, /tell NAME …, /play LINK, /queue LINK; start with // to send a line that begins with /)"
  }

  /// The text a `//…` line sends: the line without its first slash.
  public static func literal(_ line: String) -> String? {
    guard line.hasPrefix("//"), line.count > 2 else { return nil }
    return String(line.dropFirst())
  }
}
