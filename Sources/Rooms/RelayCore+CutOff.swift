import PlaybackCoordination
import WireProtocol

/// A relay cut off from most of its room (the network split in two, the host's side the
/// smaller) must not go on taking changes: the others may have elected one of its
/// successors (``RoomElection``) and gone on there, and whatever this side did meanwhile
/// would be lost when the two meet again. So the room refuses changes and messages while
/// the members it lost without a word could make up a majority of an election without
/// those still here; its timeline runs on. Only a lost successor can run the room
/// elsewhere: with none lost, nothing is refused.
///
/// A lost member counts until it is back, has left, or its relay refuses connections
/// (nothing listens there: its process is gone, so it neither carries the room nor votes);
/// and while the room is cut off, their places do not expire. When a lost successor's
/// relay answers that it runs the room, this relay sends everyone there
/// (``RelayCore/located(_:at:_:at:)``).
///
/// Only a relay that passes its rooms on (``RelayCore/feedsSuccessors``) does this.
extension RelayCore {
  /// Whether members unaccounted for could win an election without those still connected
  /// (the relay's host left out, as elections leave it out). Two people in all is the
  /// exception: each carries on alone, as the one left does when the other goes.
  public static func rivalPossible(connected: Int, unaccounted: Int) -> Bool {
    let electorate = connected + unaccounted
    return electorate > 1 && unaccounted >= electorate / 2 + 1
  }

  /// Why a change in `roomName` is refused now, if the room is cut off.
  func cutOffRefusal(_ roomName: String) -> String? {
    guard let room = rooms[roomName], room.carrying.cutOff.isCutOff else { return nil }
    return
      "the room is cut off from \(Self.names(room.carrying.cutOff.unaccounted, in: room)), who may be going on without us: changes and messages wait until they are back"
  }

  /// Decides whether `roomName` is cut off now, and tells its people when that changes.
  mutating func settleCutOff(_ roomName: String, at now: GroupInstant) -> [RelayAction] {
    guard feedsSuccessors, var room = rooms[roomName] else { return [] }
    let connected = room.members.filter {
      $0.value.connection != nil && $0.key != room.carrying.host
    }
    guard
      room.carrying.cutOff.settle(
        connected: connected.count, lostAny: !room.carrying.lost.endpoints.isEmpty)
    else { return [] }
    let cutOff = room.carrying.cutOff.isCutOff
    rooms[roomName] = room
    let text =
      cutOff
      ? "lost touch with \(Self.names(room.carrying.cutOff.unaccounted, in: room)), most of the room: they may be going on without us, so play, pause and chat wait until they are back"
      : "play, pause and chat go through again: nobody the room lost touch with can be carrying it on elsewhere now"
    return [
      .broadcast(.error(code: .cutOff, message: text, fatal: false), to: room.connections),
      .log(.notice, "room \(roomName): \(text)"),
    ]
  }

  /// What a member who enters or comes back to a cut-off room is told.
  func cutOffNotice(_ roomName: String) -> ServerMessage? {
    guard let room = rooms[roomName], room.carrying.cutOff.isCutOff else { return nil }
    return .error(
      code: .cutOff,
      message:
        "this room lost touch with \(Self.names(room.carrying.cutOff.unaccounted, in: room)): play, pause and chat wait until they are back",
      fatal: false)
  }

  /// The member is back, or gone for good: no longer unaccounted for.
  mutating func accountedFor(_ participant: ParticipantID, in roomName: String) {
    rooms[roomName]?.carrying.cutOff.accountedFor(participant)
  }

  /// "bob", "bob and carl", "bob, carl and dan": people by their names, in the order they
  /// entered.
  static func names(_ members: Set<ParticipantID>, in room: Room) -> String {
    let names = members.sorted().map { room.members[$0]?.name ?? "\($0)" }
    guard let last = names.last else { return "nobody" }
    return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " and " + last
  }
}
