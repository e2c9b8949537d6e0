import WireProtocol

/// A room's recent conversation — chat and reactions sent to everyone with `keep`, sealed
/// or not, exactly as the relay routed them — kept for people who enter later: a new
/// member gets it once, right after its welcome, each payload marked `earlier`.
///
/// Bounded by a count and by bytes as encoded, the oldest dropped first, so that one
/// chatty member cannot grow what every newcomer is sent, or what the store and a
/// successor's feed carry. Private messages never come here.
struct RoomBacklog: Sendable, Hashable {
  private(set) var entries: [StoredMessage] = []
  private(set) var bytes = 0

  init() {}

  /// Keeps a payload (as it went to everyone), dropping the oldest to stay within
  /// `maximumCount` and `maximumBytes`; one larger than the whole budget is not kept.
  mutating func append(
    _ message: ServerMessage, size: Int, maximumCount: Int, maximumBytes: Int
  ) {
    guard size <= maximumBytes, maximumCount > 0 else { return }
    let index = (entries.last?.index ?? 0) + 1
    entries.append(StoredMessage(index: index, message: message, bytes: size))
    bytes += size
    var drop = 0
    while entries.count - drop > maximumCount || bytes > maximumBytes {
      bytes -= entries[drop].bytes
      drop += 1
    }
    if drop > 0 { entries.removeFirst(drop) }
  }

  /// What a new member is sent, in order: each payload marked as said before it came.
  var earlier: [ServerMessage] {
    entries.map { Self.markedEarlier($0.message) }
  }

  /// A backlog brought back from a store or a feed, within this one's bounds (the oldest
  /// go first); anything but a payload for everyone is left out.
  mutating func restore(_ messages: [StoredMessage], maximumCount: Int, maximumBytes: Int) {
    entries = []
    bytes = 0
    for stored in messages {
      guard case .message(_, _, _, _, _, nil, _) = stored.message else { continue }
      append(
        stored.message, size: max(0, stored.bytes), maximumCount: maximumCount,
        maximumBytes: maximumBytes)
    }
  }

  static func markedEarlier(_ message: ServerMessage) -> ServerMessage {
    guard case .message(let from, let name, let seq, let kind, let body, let to, _) = message
    else { return message }
    return .message(
      from: from, fromName: name, seq: seq, kind: kind, body: body, to: to, earlier: true)
  }
}
