/// A room's password as a person gave it. Kept out of descriptions and logs.
public struct RoomPassword: Sendable, Hashable, CustomStringConvertible {
  public let text: String

  /// Passwords are 1–1024 bytes: a longer one is almost surely the wrong file.
  public static let maximumBytes = 1024

  /// The password from a file's or a variable's text: one trailing line break (as editors
  /// and `echo` leave) is not part of it.
  public init(_ raw: String) throws(RoomCryptoError) {
    var text = raw
    if text.hasSuffix("\r\n") {
      text.removeLast(1)
    } else if text.hasSuffix("\n") {
      text.removeLast()
    }
    if text.last == "\r" { text.removeLast() }
    guard !text.isEmpty else { throw .emptyPassword }
    guard text.utf8.count <= Self.maximumBytes else { throw .passwordTooLong(Self.maximumBytes) }
    self.text = text
  }

  public var description: String { "(a room password)" }
}
