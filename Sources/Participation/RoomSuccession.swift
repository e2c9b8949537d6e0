import PlaybackCoordination
import WireProtocol

/// Who would carry the room next, as the relay names them, and this participant's own
/// offer to carry it: a participant that can accept connections offers after every
/// welcome, is fed the room while it is among the first successors, and takes the room
/// over when the relay hands it over.
struct RoomSuccession: Sendable {
  /// Where this participant's own relay listens (nil: it does not offer).
  private(set) var offer: CarryOffer?
  /// The epoch of the relay on this participant's machine (see
  /// ``ParticipantConfiguration/ownRelayEpoch``).
  let ownRelayEpoch: String?
  /// The successors the relay named last, in order.
  private(set) var successors: [Successor] = []
  /// This participant's own relay carries the room now: it offers no more.
  private(set) var carrying = false

  init(offer: CarryOffer?, ownRelayEpoch: String? = nil) {
    self.offer = offer
    self.ownRelayEpoch = ownRelayEpoch
  }

  /// The offer to send after a welcome from the relay of `epoch`, if there is one to make:
  /// to its own relay, once that relay carries the room (or for a host's participant), it
  /// says that it runs the relay, with the relay's key; to any other relay, only that it
  /// can carry the room (the key stays home) — a host's participant that ended up
  /// elsewhere (its relay gone) says nothing, or the relay would take it for the one that
  /// runs it.
  func offer(afterWelcomeFrom epoch: String?) -> ClientMessage? {
    guard var offer else { return nil }
    let mine = ownRelayEpoch == nil || epoch == ownRelayEpoch
    if offer.runsRelay { return mine ? .carry(offer) : nil }
    guard carrying && mine else { return .carry(offer.toAnotherRelay) }
    offer.runsRelay = true
    return .carry(offer)
  }

  /// Successors named before, by the address of their relays: a relay that lost one
  /// (its connection went) may still send everyone to it, if it carries the room now.
  private var namedBefore: [String: Successor] = [:]
  /// How many former successors are remembered at most.
  static let rememberedSuccessors = 32

  /// The relay named its successors; true when the list changed.
  mutating func named(_ list: [Successor]) -> Bool {
    guard list != successors else { return false }
    if namedBefore.count + list.count > Self.rememberedSuccessors { namedBefore = [:] }
    for successor in successors { namedBefore[successor.relay.address] = successor }
    successors = list
    return true
  }

  /// The relay handed the room to this participant's own relay.
  mutating func handedOver() { carrying = true }

  /// Whether the relay this participant talks to runs on its machine.
  var runsRelay: Bool { carrying || offer?.runsRelay == true }

  /// Its own relay let the room go to a successor (it was replaced while away). A relay
  /// that only ever ran rooms (a host's) offers nothing more; one that can carry rooms
  /// offers to again, as a successor.
  mutating func replaced() {
    carrying = false
    if offer?.runsRelay == true { offer = nil }
  }

  /// The successor whose relay listens at `relay`, if one does (or did).
  func successor(at relay: RelayEndpoint) -> Successor? {
    successors.first { $0.relay.address == relay.address } ?? namedBefore[relay.address]
  }
}
