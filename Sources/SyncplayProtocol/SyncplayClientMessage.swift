/// What a Syncplay client sends (one JSON object a line; one line may carry several of
/// these, one per key). Read from Syncplay 1.6.9's `protocols.py`; see docs/SYNCPLAY.md.
public enum SyncplayClientMessage: Hashable, Sendable {
  case hello(SyncplayHello)
  case set(SyncplaySetting)
  case state(SyncplayClientState)
  /// Asks for the room's user list.
  case list
  case chat(String)
  case error(String)
  /// `{"TLS": {"startTLS": "send"}}`: the client asks to upgrade the connection.
  case startTLS
}

public struct SyncplayHello: Hashable, Sendable {
  public var username: String
  public var room: String
  /// `realversion` when given (the client's own), else `version`.
  public var version: String
  /// The server password as Syncplay sends it: the MD5 of the password, in hex.
  public var password: String?

  public init(username: String, room: String, version: String, password: String? = nil) {
    self.username = username
    self.room = room
    self.version = version
    self.password = password
  }
}

/// One `Set` entry.
public enum SyncplaySetting: Hashable, Sendable {
  case room(name: String)
  case file(SyncplayFile)
  case ready(isReady: Bool, manuallyInitiated: Bool)
  case playlistChange(files: [String])
  case playlistIndex(Int?)
  /// A managed room's operator password (Syncplay's `controllerAuth`).
  case controllerAuth
  /// Settings Cowatch takes note of but does not act on (features).
  case ignored(String)
}

/// A client's `State`: what its player shows, and the ping fields.
public struct SyncplayClientState: Hashable, Sendable {
  public struct Playstate: Hashable, Sendable {
    public var position: Double
    public var paused: Bool
    public var doSeek: Bool
    public init(position: Double, paused: Bool, doSeek: Bool) {
      self.position = position
      self.paused = paused
      self.doSeek = doSeek
    }
  }
  public var playstate: Playstate?
  /// Our own timestamp, echoed.
  public var latencyCalculation: Double?
  /// The client's timestamp, to echo back.
  public var clientLatencyCalculation: Double?
  public var clientRtt: Double?
  /// `ignoringOnTheFly`: the counters of forced changes in flight.
  public var ignoringServer: Int?
  public var ignoringClient: Int?

  public init(
    playstate: Playstate? = nil, latencyCalculation: Double? = nil,
    clientLatencyCalculation: Double? = nil, clientRtt: Double? = nil,
    ignoringServer: Int? = nil, ignoringClient: Int? = nil
  ) {
    self.playstate = playstate
    self.latencyCalculation = latencyCalculation
    self.clientLatencyCalculation = clientLatencyCalculation
    self.clientRtt = clientRtt
    self.ignoringServer = ignoringServer
    self.ignoringClient = ignoringClient
  }
}
