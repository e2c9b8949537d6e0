import PlaybackCoordination

/// Which characters of peer-supplied text (names, chat, unknown message types) must never
/// reach a reader raw: C0 and C1 controls, DEL, the line and paragraph separators and the
/// bidi controls. Raw, they could move a terminal's cursor, forge log lines, reorder what
/// a line shows, or split a line for tools that treat U+2028 as a newline. Headless JSON
/// and the relay's log both escape them.
public enum SafeText {
  /// The same rule the engine applies to titles and reasons (``DisplayText/isUnsafe(_:)``).
  public static func mustEscape(_ scalar: Unicode.Scalar) -> Bool {
    DisplayText.isUnsafe(scalar)
  }
}
