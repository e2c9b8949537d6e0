/// What a room may be called: the relay's rule, which invite links and the command line
/// check too, so that a name refused anywhere is refused everywhere in the same words.
public enum RoomName {
  /// 1–64 ASCII letters, digits, '-', '_' or '.'.
  public static func isValid(_ room: String) -> Bool {
    (1...64).contains(room.count)
      && room.unicodeScalars.allSatisfy {
        ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
          || $0 == "-" || $0 == "_" || $0 == "."
      }
  }

  /// Said when a name breaks the rule.
  public static let rule = "1–64 letters, digits, '-', '_' or '.'"
}
