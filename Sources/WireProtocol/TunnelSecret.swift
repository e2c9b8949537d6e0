/// The secret of a tunnel through the relay (see ``ClientMessage/tunnelOpen(ref:lender:)``):
/// 128 bits from the relay's CSPRNG as 32 lower-case hex digits. It is the only thing that
/// pairs two connections into a tunnel, so the relay gives it to the two members alone.
public enum TunnelSecret {
  public static let characters = 32

  /// Whether `secret` has the form of one (anything else is refused before it is looked up).
  public static func isPlausible(_ secret: String) -> Bool {
    secret.utf8.count == characters
      && secret.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
  }
}
