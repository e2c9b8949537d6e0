import Crypto

/// A room's password as a person gave it. Kept out of descriptions and logs.
///
/// What keys are derived from is the password's MD5 in hex, not the password itself:
/// that is the form in which Syncplay's clients send a server password, so a Syncplay
/// friend who types the room's password enters the same room (through the relay's
/// Syncplay port) as the Cowatch people who gave it. MD5 here only names the password;
/// its strength is scrypt's, which runs on it next (see docs/SECURITY.md).
public struct RoomPassword: Sendable, Hashable, CustomStringConvertible {
  /// The bytes the key derivation takes: the password's MD5 as 32 lowercase hex digits.
  public let keyMaterial: [UInt8]

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
    keyMaterial = Self.hex(Insecure.MD5.hash(data: Array(text.utf8)))
  }

  /// The password as a Syncplay client sends it: its MD5 in hex (32 hex digits).
  public init(syncplayDigest digest: String) throws(RoomCryptoError) {
    let lower = digest.lowercased()
    guard lower.utf8.count == 32, lower.allSatisfy({ $0.isHexDigit }) else {
      throw .invalidSyncplayPassword
    }
    keyMaterial = Array(lower.utf8)
  }

  static func hex(_ digest: some Sequence<UInt8>) -> [UInt8] {
    let digits = Array("0123456789abcdef".utf8)
    return digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }
  }

  public var description: String { "(a room password)" }
}
