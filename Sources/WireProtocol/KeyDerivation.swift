import Foundation

/// How a room's password becomes its keys: scrypt over the password and `salt`, with
/// `2^cost` rounds (block size 8, parallelism 1), then HKDF-SHA256 with separate labels
/// for the entry key and the message key (see docs/SECURITY.md).
///
/// It travels so that everyone who knows the password derives the same keys: the room's
/// creator picks the salt, and the relay hands it to each entrant in the challenge.
public struct KeyDerivation: Hashable, Sendable {
  public var salt: [UInt8]
  /// log2 of scrypt's rounds: 17 takes about 0.3 s and 128 MiB, so each guess at a
  /// password costs a guesser that much too.
  public var cost: Int

  /// Salts are 16–64 bytes: enough to make every room's keys its own.
  public static let saltBytes = 16...64
  /// Below 2^12 rounds the derivation is too cheap to slow a guesser down; above 2^18 it
  /// would make every entrant spend a quarter of a gigabyte, which a hostile room creator
  /// could use against them.
  public static let costs = 12...18
  /// What Cowatch uses for new rooms.
  public static let defaultCost = 17

  public init(salt: [UInt8], cost: Int = KeyDerivation.defaultCost) {
    self.salt = salt
    self.cost = cost
  }

  /// A derivation with a fresh salt from the system's secure generator.
  public static func fresh(cost: Int = KeyDerivation.defaultCost) -> KeyDerivation {
    var generator = SystemRandomNumberGenerator()
    return KeyDerivation(
      salt: (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }, cost: cost)
  }

  /// Whether the values are within what the protocol allows.
  public var isValid: Bool {
    Self.saltBytes.contains(salt.count) && Self.costs.contains(cost)
  }
}

extension KeyDerivation: Codable {
  private enum CodingKeys: String, CodingKey { case salt, cost }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    salt = try c.decodeBase64(forKey: .salt, bytes: Self.saltBytes)
    cost = try c.decode(Int.self, forKey: .cost)
    guard Self.costs.contains(cost) else {
      throw DecodingError.dataCorruptedError(
        forKey: .cost, in: c,
        debugDescription:
          "cost must be \(Self.costs.lowerBound)–\(Self.costs.upperBound), not \(cost)")
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(Data(salt).base64EncodedString(), forKey: .salt)
    try c.encode(cost, forKey: .cost)
  }
}

extension KeyedDecodingContainer {
  /// Bytes sent as standard base64, their count checked against `bytes`.
  func decodeBase64(forKey key: Key, bytes: ClosedRange<Int>) throws -> [UInt8] {
    let text = try decode(String.self, forKey: key)
    guard text.utf8.count <= (bytes.upperBound + 2) / 3 * 4, let data = Data(base64Encoded: text)
    else {
      throw DecodingError.dataCorruptedError(
        forKey: key, in: self, debugDescription: "\(key.stringValue) must be base64")
    }
    guard bytes.contains(data.count) else {
      throw DecodingError.dataCorruptedError(
        forKey: key, in: self,
        debugDescription:
          "\(key.stringValue) must be \(bytes.lowerBound == bytes.upperBound ? "\(bytes.lowerBound)" : "\(bytes.lowerBound)–\(bytes.upperBound)") bytes, not \(data.count)"
      )
    }
    return Array(data)
  }
}
