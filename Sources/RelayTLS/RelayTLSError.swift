/// Why TLS could not be set up or a relay could not be trusted, in words for people.
public enum RelayTLSError: Error, Hashable, Sendable, CustomStringConvertible {
  case unreadable(path: String, reason: String)
  case unwritable(path: String, reason: String)
  case invalid(String)

  public var description: String {
    switch self {
    case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
    case .unwritable(let path, let reason): "cannot write \(path): \(reason)"
    case .invalid(let why): why
    }
  }
}
