/// What the relay sends a Syncplay client, in the shapes Syncplay 1.6.9's server sends.
public enum SyncplayServerMessage: Hashable, Sendable {
  case hello(username: String, room: String, version: String, motd: String)
  /// Someone in the room: joined, left, or changed file (`event` nil).
  case user(name: String, room: String, file: SyncplayFile?, event: UserEvent?)
  case ready(username: String, isReady: Bool?, manuallyInitiated: Bool)
  case playlistChange(user: String?, files: [String])
  case playlistIndex(user: String?, index: Int?)
  case state(SyncplayServerState)
  /// The room and its people: `[room: [name: entry]]`.
  case list(room: String, users: [ListedUser])
  case chat(username: String, message: String)
  case error(String)
  /// The answer to a client's `startTLS` request.
  case tls(accepted: Bool)

  public enum UserEvent: Hashable, Sendable {
    case joined
    case left
  }

  public struct ListedUser: Hashable, Sendable {
    public var name: String
    public var file: SyncplayFile?
    public var isReady: Bool?
    public var controller: Bool
    public init(name: String, file: SyncplayFile?, isReady: Bool?, controller: Bool) {
      self.name = name
      self.file = file
      self.isReady = isReady
      self.controller = controller
    }
  }
}

/// A server `State`: the group's timeline as Syncplay sees it, and the ping fields.
public struct SyncplayServerState: Hashable, Sendable {
  public var position: Double
  public var paused: Bool
  public var doSeek: Bool
  public var setBy: String?
  public var latencyCalculation: Double
  public var serverRtt: Double
  public var clientLatencyCalculation: Double?
  public var ignoringServer: Int?
  public var ignoringClient: Int?

  public init(
    position: Double, paused: Bool, doSeek: Bool, setBy: String?, latencyCalculation: Double,
    serverRtt: Double, clientLatencyCalculation: Double? = nil, ignoringServer: Int? = nil,
    ignoringClient: Int? = nil
  ) {
    self.position = position
    self.paused = paused
    self.doSeek = doSeek
    self.setBy = setBy
    self.latencyCalculation = latencyCalculation
    self.serverRtt = serverRtt
    self.clientLatencyCalculation = clientLatencyCalculation
    self.ignoringServer = ignoringServer
    self.ignoringClient = ignoringClient
  }
}
