import Foundation

/// The rule for participants' names, shared by the relay (which enforces it) and clients
/// (which check before connecting, so a person hears one message, not a refusal later).
///
/// A name is what others see and how they tell people apart, so it must be visible,
/// unambiguous and small: no control, format, bidi-override, invisible or unassigned
/// characters; only the plain space as space; at most 32 characters and 64 bytes (32
/// characters can otherwise carry kilobytes of combining marks); and unique in a room
/// after compatibility normalisation and case folding ("Ann", "ann" and "ａｎｎ" are one
/// name).
public enum ParticipantName {
  public static let maximumCharacters = 32
  public static let maximumBytes = 64

  public enum Problem: Error, Hashable, Sendable, CustomStringConvertible {
    case empty
    case tooLong
    case forbiddenCharacter(UInt32)
    case invisible

    public var description: String {
      switch self {
      case .empty: "a name cannot be empty"
      case .tooLong:
        "a name is at most \(maximumCharacters) characters and \(maximumBytes) bytes"
      case .forbiddenCharacter(let scalar):
        "a name cannot contain U+\(String(scalar, radix: 16, uppercase: true)) (control, format, invisible or unassigned characters are refused)"
      case .invisible: "a name needs at least one visible letter, digit or symbol"
      }
    }
  }

  /// The name as the relay accepts it (spaces around it trimmed), or why not.
  public static func validate(_ raw: String) -> Result<String, Problem> {
    var name = Substring(raw)
    while name.first == " " { name.removeFirst() }
    while name.last == " " { name.removeLast() }
    guard !name.isEmpty else { return .failure(.empty) }
    guard name.count <= maximumCharacters, name.utf8.count <= maximumBytes else {
      return .failure(.tooLong)
    }
    var visible = false
    for scalar in name.unicodeScalars {
      switch scalar.properties.generalCategory {
      case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .privateUse,
        .surrogate:
        return .failure(.forbiddenCharacter(scalar.value))
      case .spaceSeparator:
        guard scalar == " " else { return .failure(.forbiddenCharacter(scalar.value)) }
      case .nonspacingMark, .enclosingMark, .spacingMark:
        break
      default:
        if !scalar.properties.isDefaultIgnorableCodePoint { visible = true }
      }
      if scalar.properties.isDefaultIgnorableCodePoint || scalar.properties.isBidiControl {
        return .failure(.forbiddenCharacter(scalar.value))
      }
    }
    guard visible else { return .failure(.invisible) }
    return .success(String(name))
  }

  /// What two names must not share in one room.
  public static func key(_ name: String) -> String {
    name.precomposedStringWithCompatibilityMapping.lowercased()
      .precomposedStringWithCompatibilityMapping
  }
}
