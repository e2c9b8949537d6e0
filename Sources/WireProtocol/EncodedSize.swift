/// What text costs on the wire, counted as the codec writes it (a quote or a backslash two
/// bytes, a control character up to six): budgets counted in characters or in UTF-8 let a
/// message of control characters weigh six times what it was counted as, and a relay's
/// feed of them outgrow every frame limit.
public enum EncodedSize {
  /// Bytes of `text` as a JSON string, quotes included, as `JSONEncoder` writes it
  /// (`.withoutEscapingSlashes`).
  public static func jsonString(_ text: String) -> Int {
    var bytes = 2
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x08, 0x09, 0x0A, 0x0C, 0x0D: bytes += 2
      case ..<0x20: bytes += 6
      default: bytes += 1
      }
    }
    return bytes
  }
}
