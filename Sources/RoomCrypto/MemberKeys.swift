import Crypto
import Foundation
import PlaybackCoordination

/// One participant's key for private messages: the relay, a successor fed a copy of the
/// room, or anyone else who offers to carry it routes and keeps what was said to some
/// members only, but only those members can read it — with or without a room password
/// (in a password room every member holds the room's key, so that key cannot seal a
/// message from the others).
///
/// Made from the system's CSPRNG when the participant starts; its public half goes into
/// the room's state by the participant's own command (``GroupCommand/announceSealingKey``),
/// bound to that member. A message is sealed once with a fresh content key
/// (ChaCha20-Poly1305), and that key is wrapped for each recipient with X25519 between a
/// fresh ephemeral key and the recipient's key, through HKDF-SHA256. The room, the sender
/// and the recipients are bound in as associated data: a relay can neither move the
/// message nor pass it off as another sender's or as meant for others.
public struct MemberKeys: Sendable {
  /// The private key's bytes (swift-crypto's keys are not `Sendable`).
  private let privateBytes: [UInt8]
  /// The public half, as announced: 64 lower-case hex digits.
  public let publicKey: String

  private var privateKey: Curve25519.KeyAgreement.PrivateKey {
    // The bytes came out of a key made from them, so this cannot fail.
    try! Curve25519.KeyAgreement.PrivateKey(rawRepresentation: privateBytes)
  }

  /// A new key pair, from the system's CSPRNG.
  public static func generate() -> MemberKeys {
    MemberKeys(Curve25519.KeyAgreement.PrivateKey())
  }

  private init(_ key: Curve25519.KeyAgreement.PrivateKey) {
    privateBytes = Array(key.rawRepresentation)
    publicKey = Self.hex(Array(key.publicKey.rawRepresentation))
  }

  /// The messenger kind sealed private messages travel under: the real kind is inside.
  public static let sealedKind = MessageKind.sealedPrivately

  /// Seals a payload for `recipients` (participant id and announced key, each), sent by
  /// `sender` in `room`. Nil when a key is not one.
  public static func seal(
    kind: MessageKind, body: String, for recipients: [(id: String, key: String)], room: String,
    sender: String
  ) -> String? {
    let content = SymmetricKey(size: .bits256)
    let ephemeral = Curve25519.KeyAgreement.PrivateKey()
    let ephemeralPublic = Array(ephemeral.publicKey.rawRepresentation)
    let ids = recipients.map(\.id).sorted()
    var wraps: [String] = []
    for recipient in recipients.sorted(by: { $0.id < $1.id }) {
      guard let bytes = unhex(recipient.key),
        let theirs = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: bytes),
        let shared = try? ephemeral.sharedSecretFromKeyAgreement(with: theirs)
      else { return nil }
      let wrapKey = Self.wrapKey(
        shared, ephemeral: ephemeralPublic, recipient: recipient.id, room: room, sender: sender)
      guard
        let wrapped = try? ChaChaPoly.seal(content.withUnsafeBytes { Data($0) }, using: wrapKey)
      else { return nil }
      wraps.append("\(recipient.id)=\(wrapped.combined.base64EncodedString())")
    }
    let plain = (try? JSONEncoder().encode(Payload(kind: kind.rawValue, body: body))) ?? Data()
    guard
      let box = try? ChaChaPoly.seal(
        plain, using: content,
        authenticating: associatedData(room: room, sender: sender, recipients: ids))
    else { return nil }
    return
      (["v1", Data(ephemeralPublic).base64EncodedString()] + wraps + [
        box.combined.base64EncodedString()
      ]).joined(separator: " ")
  }

  /// Opens a payload sealed for this participant (`me`) by `sender` in `room`: its kind,
  /// its body and everyone it was sealed for. Throws when it is not sealed for `me` or does
  /// not open.
  public func open(_ text: String, me: String, room: String, sender: String)
    throws(RoomCryptoError) -> (kind: MessageKind, body: String, recipients: [String])
  {
    let parts = text.split(separator: " ").map(String.init)
    guard parts.count >= 4, parts.count <= 3 + 256, parts[0] == "v1",
      let ephemeralBytes = Data(base64Encoded: parts[1]),
      let ephemeral = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: ephemeralBytes),
      let boxData = Data(base64Encoded: parts[parts.count - 1]),
      let box = try? ChaChaPoly.SealedBox(combined: boxData)
    else { throw .unreadableMessage }
    var wraps: [String: String] = [:]
    for part in parts[2..<(parts.count - 1)] {
      let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
      guard pair.count == 2 else { throw .unreadableMessage }
      wraps[pair[0]] = pair[1]
    }
    guard let mine = wraps[me], let wrappedData = Data(base64Encoded: mine),
      let wrapped = try? ChaChaPoly.SealedBox(combined: wrappedData),
      let shared = try? privateKey.sharedSecretFromKeyAgreement(with: ephemeral)
    else { throw .notSealedForMe }
    let wrapKey = Self.wrapKey(
      shared, ephemeral: Array(ephemeralBytes), recipient: me, room: room, sender: sender)
    guard let contentBytes = try? ChaChaPoly.open(wrapped, using: wrapKey) else {
      throw .notSealedForMe
    }
    let recipients = wraps.keys.sorted()
    guard
      let plain = try? ChaChaPoly.open(
        box, using: SymmetricKey(data: contentBytes),
        authenticating: Self.associatedData(room: room, sender: sender, recipients: recipients))
    else { throw .notSealedForMe }
    guard let payload = try? JSONDecoder().decode(Payload.self, from: plain) else {
      throw .unreadableMessage
    }
    return (MessageKind(payload.kind), payload.body, recipients)
  }

  private static func wrapKey(
    _ shared: SharedSecret, ephemeral: [UInt8], recipient: String, room: String, sender: String
  ) -> SymmetricKey {
    shared.hkdfDerivedSymmetricKey(
      using: SHA256.self, salt: ephemeral,
      sharedInfo: Data("cowatch-private-wrap-v1\u{0}\(room)\u{0}\(sender)\u{0}\(recipient)".utf8),
      outputByteCount: 32)
  }

  private static func associatedData(room: String, sender: String, recipients: [String]) -> Data {
    Data(
      "cowatch-private-v1\u{0}\(room)\u{0}\(sender)\u{0}\(recipients.joined(separator: ","))".utf8)
  }

  private struct Payload: Codable {
    var kind: String
    var body: String
  }

  private static func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
  }

  private static func unhex(_ text: String) -> [UInt8]? {
    guard Participant.isSealingKey(text) else { return nil }
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
      let next = text.index(index, offsetBy: 2)
      guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
      bytes.append(byte)
      index = next
    }
    return bytes
  }
}
