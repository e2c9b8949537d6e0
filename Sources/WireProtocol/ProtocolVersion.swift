/// The wire protocol's version. A relay refuses a hello with another version, with an
/// error naming both, so that mismatched builds fail clearly instead of misbehaving.
///
/// - 1: nested values in Swift's synthesized `Codable` shapes (`{"pause":{…}}`, `_0`).
/// - 2: every nested union is `{"type":…, named fields}`; see docs/PROTOCOL.md.
///
/// The line framing, the `hello` message and the `error` message keep their shape across
/// versions, so that a relay can always tell a peer of another version what is wrong.
public enum ProtocolVersion {
  public static let current = 2
}
