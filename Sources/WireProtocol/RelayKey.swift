/// The secret by which a relay knows the participant of its own machine (the host's, or a
/// successor's that took the room over): made from the system's CSPRNG when the relay
/// starts, handed to that participant inside the same process, and said back only to that
/// relay (in ``CarryOffer/relayKey``). That participant's vote is the one an election
/// leaves out when the relay goes; an address could not tell it (over a LAN address, the
/// relay's own participant looks like anyone else's).
public enum RelayKey {
  /// Lower-case hex of 128 random bits.
  public static let characters = 32

  public static func isPlausible(_ key: String) -> Bool {
    key.utf8.count == characters
      && key.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
  }

  /// Whether `a` and `b` are the same key, in time that does not depend on where they
  /// first differ.
  public static func same(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8)
    let y = Array(b.utf8)
    guard x.count == y.count else { return false }
    var difference: UInt8 = 0
    for index in x.indices { difference |= x[index] ^ y[index] }
    return difference == 0
  }
}
