/// The wire protocol's version. A relay refuses a hello with another version, with an
/// error naming both, so that mismatched builds fail clearly instead of misbehaving.
public enum ProtocolVersion {
  public static let current = 1
}
