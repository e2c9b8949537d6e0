/// What can be wrong with bytes received from a peer.
public enum WireError: Error, Hashable, Sendable, CustomStringConvertible {
  case frameTooLarge(limit: Int)
  case malformed(String)
  case unsupportedVersion(received: Int, supported: Int)

  public var description: String {
    switch self {
    case .frameTooLarge(let limit): "frame longer than \(limit) bytes"
    case .malformed(let why): "malformed frame: \(why)"
    case .unsupportedVersion(let received, let supported):
      // Read by a person whose client will not connect: say what to do, not only what broke.
      "this relay speaks Cowatch protocol \(supported) and you sent \(received): use the same cowatch version on both ends"
    }
  }

  public var code: ErrorCode {
    switch self {
    case .frameTooLarge: .frameTooLarge
    case .malformed: .malformedFrame
    case .unsupportedVersion: .unsupportedVersion
    }
  }
}
