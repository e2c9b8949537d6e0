import PlaybackCoordination
import WireProtocol

/// Messages between members (chat, reactions, sealed messages): routed by recipient,
/// logged for exactly-once delivery across reconnects, bounded in bytes.
extension RelayCore {
  // MARK: - Messenger

  /// A messenger kind names a message type ("chat", "reaction"), bytes.
  public static let maximumKindBytes = 64

  mutating func deliver(
    seq: UInt64, to recipients: Recipients, kind: MessageKind, body: String, keep: Bool = false,
    from participant: ParticipantID, in roomName: String
  ) -> (actions: [RelayAction], answer: ServerMessage) {
    guard var room = rooms[roomName], let sender = room.members[participant] else {
      return ([], .rejected(id: seq, reason: .unknownParticipant(participant)))
    }
    if body.utf8.count + kind.rawValue.utf8.count > configuration.maximumMessageBytes {
      let text =
        "message of \(body.utf8.count) bytes is over the \(configuration.maximumMessageBytes)-byte limit"
      return ([], .rejected(id: seq, reason: .invalidValue(text)))
    }
    do throws(Rejection) {
      try DisplayText.check(
        kind.rawValue, as: "a message kind", maximumBytes: Self.maximumKindBytes)
    } catch {
      return ([], .rejected(id: seq, reason: error))
    }
    // Sealed with the room's key, or for its recipients with theirs.
    if room.protection != nil, kind != RoomProtection.sealedKind, kind != .sealedPrivately {
      let text = "room \(roomName) has a password: its messages travel sealed end to end"
      return ([], .rejected(id: seq, reason: .invalidValue(text)))
    }
    if let refusal = Self.conversationRefusal(
      kind: kind, body: body, keep: keep, to: recipients, sealed: room.protection != nil)
    {
      return ([], .rejected(id: seq, reason: .invalidValue(refusal)))
    }
    let targets: [ParticipantID]
    switch recipients {
    case .all:
      targets = room.members.keys.filter { $0 != participant }.sorted()
    case .only(let ids):
      guard !ids.isEmpty else {
        return ([], .rejected(id: seq, reason: .invalidValue("a message for nobody")))
      }
      let unknown = ids.filter { room.members[$0] == nil }
      guard unknown.isEmpty else {
        let text = "not in this room: \(unknown.map(\.rawValue).joined(separator: ", "))"
        return ([], .rejected(id: seq, reason: .invalidValue(text)))
      }
      targets = Array(Set(ids)).sorted()
    }
    let privately: [ParticipantID]? =
      if case .only = recipients { targets } else { nil }
    let message = ServerMessage.message(
      from: participant, fromName: sender.name, seq: seq, kind: kind, body: body, to: privately)
    var live: [ConnectionID] = []
    // Counted as written (a control character is six bytes there), so that what a member
    // keeps, and a successor is fed, stays within its budget on the wire too.
    let size =
      kind.rawValue.utf8.count + EncodedSize.jsonString(body)
      + EncodedSize.jsonString(sender.name) + 64 + (privately?.count ?? 0) * 12
    var notices: [RelayAction] = []
    for target in targets {
      guard var member = room.members[target] else { continue }
      if let c = member.connection { live.append(c) }
      let dropped = member.messages.append(message, size: size, live: member.connection != nil)
      room.members[target] = member
      markChanged(roomName, member: target)
      // Nothing lost silently: whoever sent a payload that had to be dropped hears of it
      // (the member hears how many on its return).
      var bySender: [ParticipantID: Int] = [:]
      for case .message(let from, _, _, _, _, _, _) in dropped { bySender[from, default: 0] += 1 }
      for (from, n) in bySender.sorted(by: { $0.key < $1.key }) {
        guard let c = room.members[from]?.connection else { continue }
        let text =
          "\(n) of your messages to \(member.name) \(n == 1 ? "was" : "were") dropped: \(member.name) is away and more than the relay keeps are waiting"
        notices.append(.send(.error(code: .messagesLost, message: text, fatal: false), to: c))
      }
    }
    if keep {
      // As it went to everyone; marked earlier only when a newcomer is sent it.
      room.backlog.append(
        message, size: size, maximumCount: configuration.maximumBacklogMessages,
        maximumBytes: configuration.maximumBacklogBytes)
      markBacklogChanged(roomName)
    }
    rooms[roomName] = room
    let sequence = room.engine.state.sequence
    return (
      (live.isEmpty ? [] : [.broadcast(message, to: live)]) + notices,
      .accepted(id: seq, sequence: sequence)
    )
  }

  /// Why a payload cannot be taken as it says, in words: one marked `keep` must be the
  /// room's conversation — for everyone, chat or a reaction (sealed: the relay takes the
  /// sender's word, as it cannot read the kind) —, and a reaction in the clear must hold
  /// what a reaction may (the bounds are checked here too, on the wire, not only by the
  /// sender's front).
  static func conversationRefusal(
    kind: MessageKind, body: String, keep: Bool, to recipients: Recipients, sealed: Bool
  ) -> String? {
    if kind == .reaction, case .failure(let rejection) = Reaction.read(body: body) {
      return rejection.description
    }
    guard keep else { return nil }
    guard case .all = recipients else {
      return "a message for some people only is never kept for those who come later"
    }
    if sealed ? kind != RoomProtection.sealedKind : !MessageKind.conversation.contains(kind) {
      return "only chat and reactions to everyone are kept for those who come later, not \(kind)"
    }
    return nil
  }
}
