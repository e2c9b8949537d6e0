/// What mpv answered a request: `success`, or its words for what went wrong.
public enum MpvStatus: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
  case success
  case failure(String)

  public init(_ error: String) { self = error == "success" ? .success : .failure(error) }
  public init(stringLiteral error: String) { self.init(error) }

  public var description: String {
    switch self {
    case .success: "success"
    case .failure(let why): why
    }
  }
}

/// mpv's answer to one request: its data and whether it succeeded.
public struct MpvReply: Hashable, Sendable {
  public var data: MpvValue
  public var status: MpvStatus

  public init(data: MpvValue, status: MpvStatus) {
    self.data = data
    self.status = status
  }
}
