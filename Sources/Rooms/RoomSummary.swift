/// What a relay tells about one of its rooms to whoever looks for rooms nearby: nothing a
/// stranger could use to get in (no secrets, no member ids).
public struct RoomSummary: Hashable, Sendable {
  public var name: String
  /// Members connected now.
  public var people: Int
  public var password: Bool
  /// The name of the member whose machine runs the relay (`cowatch host`), if any.
  public var host: String?

  public init(name: String, people: Int, password: Bool, host: String?) {
    self.name = name
    self.people = people
    self.password = password
    self.host = host
  }
}
