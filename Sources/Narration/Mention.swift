/// Whether a chat line names someone: their name as the people pane shows it, in any
/// case, as a word of its own (`ann`, `@ann`, `Ann!`, `hey mary ann,`), never inside
/// another word (`annie`, `joanne`). A front rings the bell and highlights such a line;
/// headless mode marks it. Pure, and the same in every front.
public enum Mention {
  /// Whether `text` names `name`. An empty name names nobody.
  public static func names(_ name: String, in text: String) -> Bool {
    let wanted = Array(name.trimmed.lowercased())
    guard !wanted.isEmpty else { return false }
    let chars = Array(text.lowercased())
    guard chars.count >= wanted.count else { return false }
    for start in 0...(chars.count - wanted.count) where chars[start] == wanted[0] {
      guard chars[start..<(start + wanted.count)].elementsEqual(wanted) else { continue }
      let end = start + wanted.count
      // Bounded by something that is not part of a word on each side where the name's own
      // edge is part of one (a name ending in "." or an emoji bounds itself).
      let before = start == 0 || !isWord(chars[start - 1]) || !isWord(wanted[0])
      let after = end == chars.count || !isWord(chars[end]) || !isWord(wanted[wanted.count - 1])
      if before && after { return true }
    }
    return false
  }

  /// Letters, digits and `_` make words; spaces, punctuation, `@` and emoji part them.
  private static func isWord(_ c: Character) -> Bool {
    c.isLetter || c.isNumber || c == "_"
  }
}

extension String {
  fileprivate var trimmed: Substring {
    let start = firstIndex { !$0.isWhitespace } ?? endIndex
    let end = lastIndex { !$0.isWhitespace }.map { index(after: $0) } ?? start
    return self[start..<max(start, end)]
  }
}
