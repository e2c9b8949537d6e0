import PlaybackCoordination
import WireProtocol

/// Who would carry the room next, as the relay names them, and this participant's own
/// offer to carry it: a participant that can accept connections offers after every
/// welcome, is fed the room while it is among the first successors, and takes the room
/// over when the relay hands it over.
struct RoomSuccession: Sendable {
  /// Where this participant's own relay listens (nil: it does not offer).
  let offer: CarryOffer?
  /// The successors the relay named last, in order.
  private(set) var successors: [Successor] = []
  /// This participant's own relay carries the room now: it offers no more.
  private(set) var carrying = false

  init(offer: CarryOffer?) { self.offer = offer }

  /// The offer to send after a welcome, if there is one to make: once this participant's
  /// own relay carries the room, it says so instead (it is that relay's host).
  var offerAfterWelcome: ClientMessage? {
    guard var offer else { return nil }
    if carrying { offer.runsRelay = true }
    return .carry(offer)
  }

  /// The relay named its successors; true when the list changed.
  mutating func named(_ list: [Successor]) -> Bool {
    guard list != successors else { return false }
    successors = list
    return true
  }

  /// The relay handed the room to this participant's own relay.
  mutating func handedOver() { carrying = true }

  /// The successor whose relay listens at `relay`, if one does.
  func successor(at relay: RelayEndpoint) -> Successor? {
    successors.first { $0.relay.address == relay.address }
  }
}
