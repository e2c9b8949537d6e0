/// The file a Syncplay client has open, as it tells the server (`Set {file: …}`). The name
/// may be the file's name, a hash of it (Syncplay's "send hashed" privacy mode: twelve hex
/// digits of its SHA-256) or hidden; the size likewise.
public struct SyncplayFile: Hashable, Sendable {
  public var name: String
  /// Seconds; 0 when the player does not know yet.
  public var duration: Double
  /// Bytes, or a hash of the size, as the client chose to send it.
  public var size: JSONValue

  public init(name: String, duration: Double, size: JSONValue = .number(0)) {
    self.name = name
    self.duration = duration
    self.size = size
  }

  /// Syncplay's placeholder when the client sends no name at all.
  public static let hiddenName = "**Hidden filename**"

  /// The name as Syncplay's "send hashed" mode sends it (12 lowercase hex digits).
  public var isHashedName: Bool {
    name.count == 12 && name.allSatisfy { $0.isHexDigit && !$0.isUppercase }
  }
}
