import PlaybackCoordination
import WireProtocol

/// The answers a relay gave to one member's most recent requests (commands and messenger
/// payloads share one id space), so that a request resent after a reconnection is
/// answered again instead of applied twice.
///
/// A window of recent ids rather than "the highest id seen": an id the relay has not seen
/// is applied even when a higher one came first, so nothing that arrives is dropped by
/// mistake; only ids older than the window are refused, and a client that keeps fewer
/// than ``capacity`` requests unanswered never sends those.
struct RequestWindow: Sendable {
  enum Lookup: Hashable {
    case new
    /// Seen before: the answer to send again.
    case answered(ServerMessage)
    /// Older than the window: whether it was applied is no longer known.
    case forgotten
  }

  /// An answer as remembered: the id is the key, and a whole `ServerMessage` inline
  /// (its largest case carries a room state) would cost hundreds of bytes per entry, times
  /// ``capacity``, times every member.
  enum Answer: Sendable {
    case accepted(sequence: UInt64)
    case rejected(Rejection)
    indirect case other(ServerMessage)

    init(_ message: ServerMessage) {
      switch message {
      case .accepted(_, let sequence): self = .accepted(sequence: sequence)
      case .rejected(_, let reason): self = .rejected(reason)
      default: self = .other(message)
      }
    }

    func message(id: UInt64) -> ServerMessage {
      switch self {
      case .accepted(let sequence): .accepted(id: id, sequence: sequence)
      case .rejected(let reason): .rejected(id: id, reason: reason)
      case .other(let message): message
      }
    }
  }

  let capacity: Int
  private var answers: [UInt64: Answer] = [:]
  private var order: [UInt64] = []
  private var head = 0
  /// Every id at or below this has left the window.
  private var floor: UInt64 = 0

  init(capacity: Int) { self.capacity = max(1, capacity) }

  func lookup(_ id: UInt64) -> Lookup {
    if let answer = answers[id] { return .answered(answer.message(id: id)) }
    return id <= floor ? .forgotten : .new
  }

  /// The window as stored: the latest `limit` answers, oldest first, and the floor below
  /// which ids count as forgotten (raised past the answers left out). Requests resent after
  /// a restart are the few the participant had not heard answered, its latest; an older one
  /// is refused as forgotten, never applied twice.
  func stored(limit: Int) -> (answers: [StoredAnswer], floor: UInt64) {
    let ids = order[head...]
    let kept = ids.suffix(max(0, limit))
    var floor = self.floor
    for id in ids.dropLast(kept.count) { floor = max(floor, id) }
    return (
      kept.compactMap { id in answers[id].map { StoredAnswer(id: id, answer: $0.message(id: id)) }
      },
      floor
    )
  }

  /// A window brought back from a store.
  mutating func restore(answers stored: [StoredAnswer], floor: UInt64) {
    answers = [:]
    order = []
    head = 0
    self.floor = floor
    for entry in stored.suffix(capacity) where entry.id > floor && answers[entry.id] == nil {
      answers[entry.id] = Answer(entry.answer)
      order.append(entry.id)
    }
  }

  mutating func record(_ id: UInt64, _ answer: ServerMessage) {
    guard answers.updateValue(Answer(answer), forKey: id) == nil else { return }
    order.append(id)
    if order.count - head > capacity {
      let evicted = order[head]
      head += 1
      answers[evicted] = nil
      floor = max(floor, evicted)
      if head > capacity {
        order.removeFirst(head)
        head = 0
      }
    }
  }
}
