import Rooms

/// An outlet whose connection can stop carrying lines and carry another connection's
/// bytes instead: a half of a tunnel (TCP; the in-memory relay has none, and refuses
/// tunnels when asked to splice).
public protocol SplicingOutlet: RelayOutlet {
  /// From now on, what this connection reads is written to `other`'s and the reverse,
  /// paced by `meter`, until either ends (then both close). Called once, on one of the two.
  func splice(with other: any SplicingOutlet, meter: TunnelMeter)
}
