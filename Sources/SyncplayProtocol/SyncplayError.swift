/// Why a line from a Syncplay client was refused. The relay answers with Syncplay's
/// `Error` message (which makes the client drop the connection, as Syncplay's server does)
/// and nothing else changes.
public enum SyncplayError: Error, Hashable, Sendable, CustomStringConvertible {
  case lineTooLong(limit: Int)
  case notUTF8
  case notJSON
  case notAnObject
  case unknownCommand(String)
  case badField(String, expected: String)
  case missing(String)

  public var description: String {
    switch self {
    case .lineTooLong(let limit): "line longer than \(limit) bytes"
    case .notUTF8: "line is not UTF-8"
    case .notJSON: "line is not JSON"
    case .notAnObject: "a message must be a JSON object"
    case .unknownCommand(let name): "unknown command \(SyncplayCodec.quoted(name))"
    case .badField(let field, let expected): "\(field) must be \(expected)"
    case .missing(let field): "\(field) is missing"
    }
  }
}
