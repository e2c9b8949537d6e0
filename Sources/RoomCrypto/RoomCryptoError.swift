/// Why a room password or a sealed message could not be used.
public enum RoomCryptoError: Error, Hashable, Sendable, CustomStringConvertible {
  case emptyPassword
  case passwordTooLong(Int)
  /// A Syncplay client's server password that is not an MD5 in hex.
  case invalidSyncplayPassword
  case invalidDerivation
  case derivationFailed(String)
  /// Not base64, not a sealed box, or not a payload once opened.
  case unreadableMessage
  /// Sealed with another key: another password, another room, or passed off as another
  /// sender's.
  case notSealedForThisRoom
  /// A private message not sealed for this participant (or altered on the way).
  case notSealedForMe

  public var description: String {
    switch self {
    case .emptyPassword: "the room password is empty"
    case .passwordTooLong(let n): "the room password is longer than \(n) bytes"
    case .invalidSyncplayPassword:
      "the server password is not in the form Syncplay sends (an MD5 in hex)"
    case .invalidDerivation: "the room's key derivation parameters are out of range"
    case .derivationFailed(let why): "could not derive the room's keys: \(why)"
    case .unreadableMessage: "the message is not a sealed message"
    case .notSealedForThisRoom: "the message was not sealed with this room's password"
    case .notSealedForMe: "the private message was not sealed for you, or was altered on the way"
    }
  }
}
