/// Settings of the Syncplay bridge.
public struct SyncplayBridgeConfiguration: Hashable, Sendable {
  /// How often the group's state is pushed to the client (Syncplay's server: every second;
  /// it is also the heartbeat), seconds.
  public var pushInterval: Double
  /// A client silent for this long is dropped (Syncplay's `PROTOCOL_TIMEOUT`), seconds.
  public var silenceTimeout: Double
  /// A connection that has not said Hello by then is dropped (as the relay drops its own),
  /// seconds: idle sockets must not pile up.
  public var helloTimeout: Double
  /// A client this far from the group (by its own reports) is moved back with a seek…
  public var driftThreshold: Double
  /// …at most once per this many seconds: every seek is a visible jump in its player.
  public var driftSeekInterval: Double
  /// How long after a change the client's reports are not taken for drift (its player
  /// seeks, unpauses and reports at most ten times a second), seconds.
  public var settleTime: Double
  /// How long a change the client made waits for the group's answer before the client is
  /// taken to follow the group again, seconds.
  public var userActionTimeout: Double
  /// What the relay says to people when they connect.
  public var motd: String
  /// Whether a client's STARTTLS is accepted: only with a certificate Syncplay's client
  /// can verify (a CA's), since it gives up on a server whose certificate it cannot.
  public var offersTLS: Bool

  public init(
    pushInterval: Double = 1, silenceTimeout: Double = 12.5, helloTimeout: Double = 5,
    driftThreshold: Double = 0.2,
    driftSeekInterval: Double = 60, settleTime: Double = 1.5, userActionTimeout: Double = 3,
    motd: String = "Cowatch relay: you are watching with people on Cowatch and Syncplay.",
    offersTLS: Bool = false
  ) {
    self.offersTLS = offersTLS
    self.pushInterval = pushInterval
    self.silenceTimeout = silenceTimeout
    self.helloTimeout = helloTimeout
    self.driftThreshold = driftThreshold
    self.driftSeekInterval = driftSeekInterval
    self.settleTime = settleTime
    self.userActionTimeout = userActionTimeout
    self.motd = motd
  }
}
