import Crypto
import Foundation

/// How people name a relay's certificate: `SHA256:` and the base64 of the SHA-256 of its
/// DER bytes, without padding, as SSH shows host keys. Short enough to read out or paste
/// into an invite, long enough that nobody can make a certificate with the same one.
public enum RelayFingerprint {
  public static func of(der: [UInt8]) -> String {
    let digest = SHA256.hash(data: der)
    let text = Data(digest).base64EncodedString()
    return "SHA256:" + text.trimmingCharacters(in: CharacterSet(charactersIn: "="))
  }

  /// A fingerprint as people read it: in the alphabet of invite links (`-` and `_` for
  /// `+` and `/`), so that what a prompt or a host's terminal shows is character for
  /// character what the link ends in. ``parse(_:)`` takes either spelling.
  public static func shown(_ fingerprint: String) -> String {
    String(fingerprint.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
  }

  /// A fingerprint as a person gave it (`--fingerprint`), in the form ``of(der:)`` writes,
  /// or nil when it is not one (padding and surrounding spaces are forgiven, and the
  /// spelling ``shown(_:)`` and links use is read as the same fingerprint).
  public static func parse(_ text: String) -> String? {
    var value = text.trimmingCharacters(in: .whitespaces)
    guard value.hasPrefix("SHA256:") else { return nil }
    value = String(value.dropFirst("SHA256:".count)).trimmingCharacters(
      in: CharacterSet(charactersIn: "="))
    if value.contains(where: { $0 == "+" || $0 == "/" }),
      value.contains(where: { $0 == "-" || $0 == "_" })
    {
      return nil
    }
    value = String(value.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
    let padded = value + String(repeating: "=", count: (4 - value.count % 4) % 4)
    guard let bytes = Data(base64Encoded: padded), bytes.count == 32 else { return nil }
    return "SHA256:" + value
  }
}
