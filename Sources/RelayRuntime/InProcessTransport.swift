import PlaybackCoordination
import Transports

/// A ``Transport`` into a ``RelayRuntime`` of this process, for participants the relay runs
/// on someone's behalf (a Syncplay client, through the bridge): the same runtime, rules and
/// wire codec as a TCP participant, without a socket. `address` is the peer's, so that the
/// per-address limits count the person behind the bridge, not the bridge.
public struct InProcessTransport: Transport {
  public let runtime: RelayRuntime
  public let address: String?
  public let origin: ParticipantOrigin

  public init(runtime: RelayRuntime, address: String?, origin: ParticipantOrigin) {
    self.runtime = runtime
    self.address = address
    self.origin = origin
  }

  public var endpointDescription: String { "this relay" }

  public func connect() async throws(TransportError) -> any TransportConnection {
    guard let connection = InMemoryConnection.open(on: runtime, address: address, origin: origin)
    else {
      throw .unreachable(endpoint: endpointDescription, reason: "refused")
    }
    return connection
  }
}
