import WireProtocol

/// The messenger payloads a relay sent (or holds) for one member, numbered 1, 2, 3… in the
/// order sent, kept within a count and a byte budget.
///
/// Writing a payload to a connection does not deliver it: a connection that resets loses
/// what was on the way. So the relay keeps the latest ones, and a member that resumes says
/// how many it received (``ResumeToken/messagesReceived``) and gets the rest again — or, if
/// they have been dropped to stay within the budget, learns how many it missed.
struct MessageLog: Sendable {
  let maximumCount: Int
  let maximumBytes: Int
  private var entries: [(index: UInt64, message: ServerMessage, bytes: Int)] = []
  private var head = 0
  private var bytes = 0
  /// Numbers given so far.
  private(set) var count: UInt64 = 0
  /// The highest number written to a connection.
  private(set) var sent: UInt64 = 0

  init(maximumCount: Int, maximumBytes: Int) {
    self.maximumCount = max(1, maximumCount)
    self.maximumBytes = max(1, maximumBytes)
  }

  /// Numbers and keeps a payload; `live` when it is written to a connection now. Returns
  /// the payloads dropped to stay within the budget that were never written to the member
  /// (their senders must hear of it).
  @discardableResult
  mutating func append(_ message: ServerMessage, size: Int, live: Bool) -> [ServerMessage] {
    count += 1
    entries.append((count, message, size))
    bytes += size
    if live { sent = count }
    var dropped: [ServerMessage] = []
    while entries.count - head > maximumCount || (bytes > maximumBytes && entries.count - head > 1)
    {
      if entries[head].index > sent { dropped.append(entries[head].message) }
      bytes -= entries[head].bytes
      head += 1
    }
    if head > 64, head * 2 > entries.count {
      entries.removeFirst(head)
      head = 0
    }
    return dropped
  }

  /// The log as stored: the numbers given and sent, and the payloads kept.
  var stored: (count: UInt64, sent: UInt64, messages: [StoredMessage]) {
    (
      count, sent,
      entries[head...].map { StoredMessage(index: $0.index, message: $0.message, bytes: $0.bytes) }
    )
  }

  /// A log brought back from a store, within this log's budget (the oldest go first).
  mutating func restore(count: UInt64, sent: UInt64, messages: [StoredMessage]) {
    entries = []
    head = 0
    bytes = 0
    var last: UInt64 = 0
    for stored in messages where stored.index > last && stored.index <= count {
      last = stored.index
      entries.append((stored.index, stored.message, max(0, stored.bytes)))
      bytes += max(0, stored.bytes)
    }
    while entries.count - head > maximumCount || (bytes > maximumBytes && entries.count - head > 1)
    {
      bytes -= entries[head].bytes
      head += 1
    }
    self.count = count
    self.sent = min(sent, count)
  }

  /// What to send a member that resumes having received `received` payloads (nil: an
  /// older client that did not say; then what was never written), and how many are gone.
  mutating func resume(received: UInt64?) -> (resend: [ServerMessage], missed: UInt64) {
    let after = min(received ?? sent, count)
    let kept = entries[head...].filter { $0.index > after }
    let oldest = entries[head...].first?.index ?? (count + 1)
    let missed = oldest > after + 1 ? oldest - after - 1 : 0
    sent = count
    return (kept.map(\.message), missed)
  }
}
