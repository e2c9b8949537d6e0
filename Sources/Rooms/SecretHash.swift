/// How a relay keeps resume secrets: their SHA-256, compared in constant time. The secrets
/// are 128 random bits, so an unsalted hash is enough: nobody can search that space, and
/// a copy of the store (or of the relay's memory) does not let anyone resume as a member.
public enum SecretHash {
  public static func of(_ secret: String) -> [UInt8] {
    SHA256Digest.hash(Array(secret.utf8))
  }

  /// The longest secret worth hashing: the relay's are 32 hex digits. A longer one (a peer
  /// may send a whole frame's worth) never matches and costs nothing to refuse.
  public static let maximumSecretBytes = 64

  /// Whether `secret` hashes to `hash`, without stopping at the first difference, so that
  /// the time taken says nothing about how close a guess was.
  public static func matches(_ secret: String, _ hash: [UInt8]) -> Bool {
    guard secret.utf8.count <= maximumSecretBytes else { return false }
    let candidate = of(secret)
    var difference = UInt8(truncatingIfNeeded: candidate.count ^ hash.count)
    for i in 0..<max(candidate.count, hash.count) {
      difference |= (i < candidate.count ? candidate[i] : 0) ^ (i < hash.count ? hash[i] : 0)
    }
    return difference == 0
  }
}
