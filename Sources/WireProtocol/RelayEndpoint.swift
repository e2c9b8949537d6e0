/// Where another relay of the same database can be reached, and the certificate it shows:
/// what a `redirect` names and a welcome lists, so that a participant can follow a room to
/// the relay that owns it and find another when that one dies.
///
/// The fingerprint comes over a connection already authenticated to a relay the person
/// trusts, so the participant may pin it without asking again.
public struct RelayEndpoint: Hashable, Sendable, Codable, CustomStringConvertible {
  /// `HOST:PORT` (`[v6]:PORT` for IPv6).
  public var address: String
  /// `SHA256:…` of the relay's certificate, or nil when it speaks without TLS.
  public var fingerprint: String?

  public init(address: String, fingerprint: String? = nil) {
    self.address = address
    self.fingerprint = fingerprint
  }

  /// Longest address and fingerprint accepted from the wire.
  public static let maximumAddressLength = 262
  public static let maximumFingerprintLength = 100

  public init(from decoder: any Decoder) throws {
    enum Keys: String, CodingKey { case address, fingerprint }
    let c = try decoder.container(keyedBy: Keys.self)
    let address = try c.decode(String.self, forKey: .address)
    let fingerprint = try c.decodeIfPresent(String.self, forKey: .fingerprint)
    guard Self.isPlausible(address: address) else {
      throw DecodingError.dataCorruptedError(
        forKey: .address, in: c, debugDescription: "not a HOST:PORT address")
    }
    if let fingerprint {
      guard Self.isPlausible(fingerprint: fingerprint) else {
        throw DecodingError.dataCorruptedError(
          forKey: .fingerprint, in: c, debugDescription: "not a certificate fingerprint")
      }
    }
    self.init(address: address, fingerprint: fingerprint)
  }

  public func encode(to encoder: any Encoder) throws {
    enum Keys: String, CodingKey { case address, fingerprint }
    var c = encoder.container(keyedBy: Keys.self)
    try c.encode(address, forKey: .address)
    try c.encodeIfPresent(fingerprint, forKey: .fingerprint)
  }

  /// Printable ASCII of a fingerprint's length (`SHA256:` and hex digits, or base64).
  public static func isPlausible(fingerprint: String) -> Bool {
    fingerprint.utf8.count <= maximumFingerprintLength
      && fingerprint.unicodeScalars.allSatisfy { $0.isASCII && !SafeText.mustEscape($0) }
  }

  /// `HOST:PORT` with a port in 1–65535 and a host of letters, digits, `.-_:[]` only.
  public static func isPlausible(address: String) -> Bool {
    guard !address.isEmpty, address.utf8.count <= maximumAddressLength,
      let colon = address.lastIndex(of: ":"),
      let port = Int(address[address.index(after: colon)...]), (1...65535).contains(port)
    else { return false }
    let host = address[..<colon]
    return !host.isEmpty
      && host.unicodeScalars.allSatisfy {
        $0.isASCII
          && ($0.properties.isAlphabetic || ("0"..."9").contains($0)
            || ".-_:[]".unicodeScalars.contains($0))
      }
  }

  public var description: String { address }
}
