/// The rules for text that peers choose and other people read (titles, ids, suspension
/// reasons, message kinds): bounded in bytes, so that one peer cannot grow a room's state
/// and every `welcome` with it, and free of the characters that must never reach a reader
/// raw (see ``isUnsafe(_:)``).
public enum DisplayText {
  /// C0 and C1 controls, DEL, the line and paragraph separators and the bidi controls.
  /// Raw, they could move a terminal's cursor, forge log lines, reorder what a line shows,
  /// or split a line for tools that treat U+2028 as a newline.
  public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
    let v = scalar.value
    return v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029
      || scalar.properties.isBidiControl
  }

  /// Refuses `text` when it is empty (unless allowed), longer than `maximumBytes` of
  /// UTF-8, or holds an unsafe character; `what` names it in the rejection.
  public static func check(
    _ text: String, as what: String, maximumBytes: Int, allowEmpty: Bool = false
  ) throws(Rejection) {
    guard allowEmpty || !text.isEmpty else { throw .invalidValue("\(what) is empty") }
    guard text.utf8.count <= maximumBytes else {
      throw .invalidValue("\(what) is longer than \(maximumBytes) bytes")
    }
    guard !text.unicodeScalars.contains(where: isUnsafe) else {
      throw .invalidValue("\(what) holds a control, separator or bidi character")
    }
  }

  /// `text` cut to at most `maximumBytes` of UTF-8, on a character's boundary: for text
  /// kept or sent within a bound where a shorter one is better than none (a remembered
  /// title, a DNS label).
  public static func prefix(_ text: String, maximumBytes: Int) -> String {
    guard text.utf8.count > maximumBytes else { return text }
    var result = ""
    var used = 0
    for character in text {
      let size = String(character).utf8.count
      guard used + size <= maximumBytes else { break }
      result.append(character)
      used += size
    }
    return result
  }

  /// Series and item ids, bytes.
  public static let maximumIdentifierBytes = 128
  /// Series and item titles, bytes.
  public static let maximumTitleBytes = 256
  /// A suspension reason, bytes.
  public static let maximumReasonBytes = 64
  /// Suspensions one participant may hold at once.
  public static let maximumSuspensions = 8
}
