/// Turns the keys of a bracketed paste (`ESC [200~` … `ESC [201~`, which the terminal sends
/// around pasted text once asked to with `ESC [?2004h`) into one ``Key/paste(_:)``, so that
/// nothing pasted is ever taken for keys: an escape sequence in pasted text stays text.
///
/// A value type fed the keys curses reads; ``flush()`` after each burst of input gives back a
/// lone `ESC` (the person pressed Esc) that no bracket followed.
public struct PasteDecoder: Hashable, Sendable {
  private enum State: Hashable, Sendable {
    case normal
    /// After ESC: the keys seen so far of `[200~`.
    case opening([Key])
    /// Inside a paste: the text so far, and how much of `ESC [201~` was just seen.
    case pasting(String, closing: [Key])
  }

  private var state: State = .normal
  /// Longest paste kept, in characters; the rest is dropped (a paste is for a chat line).
  public static let maximumLength = 4000

  static let open: [Key] = [.escape] + "[200~".map { .character($0) }
  static let close: [Key] = [.escape] + "[201~".map { .character($0) }

  public init() {}

  /// Whether a paste is under way (its end has not come yet).
  public var isPasting: Bool {
    if case .pasting = state { return true }
    return false
  }

  /// The keys to act on now, given the next key read.
  public mutating func feed(_ key: Key) -> [Key] {
    switch state {
    case .normal:
      if key == .escape {
        state = .opening([.escape])
        return []
      }
      return [key]
    case .opening(var seen):
      seen.append(key)
      if seen == Self.open {
        state = .pasting("", closing: [])
        return []
      }
      if Array(Self.open.prefix(seen.count)) == seen {
        state = .opening(seen)
        return []
      }
      // Not a paste: what was held back goes out as it came (a new ESC may start again).
      state = .normal
      var out: [Key] = []
      for held in seen.dropLast() { out.append(held) }
      return out + feed(seen.last!)
    case .pasting(var text, var closing):
      closing.append(key)
      if closing == Self.close {
        state = .normal
        return [.paste(text)]
      }
      if Array(Self.close.prefix(closing.count)) == closing {
        state = .pasting(text, closing: closing)
        return []
      }
      // Part of the text after all: an ESC inside a paste is text.
      var rest = closing
      if rest.last == .escape, rest.count > 1 {
        rest.removeLast()
        for held in rest { Self.append(held, to: &text) }
        state = .pasting(text, closing: [.escape])
        return []
      }
      for held in rest { Self.append(held, to: &text) }
      state = .pasting(text, closing: [])
      return []
    }
  }

  /// The input went quiet: an ESC (or the start of a bracket) held back is the keys it
  /// was. A paste under way stays open for the rest of its text.
  public mutating func flush() -> [Key] {
    guard case .opening(let seen) = state else { return [] }
    state = .normal
    return seen
  }

  /// A paste whose end never came (the terminal was cut off, say): the text so far.
  public mutating func abandonPaste() -> [Key] {
    guard case .pasting(var text, let closing) = state else { return flush() }
    for held in closing { Self.append(held, to: &text) }
    state = .normal
    return [.paste(text)]
  }

  private static func append(_ key: Key, to text: inout String) {
    guard text.count < maximumLength else { return }
    switch key {
    case .character(let c): text.append(c)
    case .enter: text.append("\n")
    case .tab: text.append("\t")
    case .escape: text.append("\u{1b}")
    default: break
    }
  }
}
