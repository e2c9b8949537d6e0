/// A borrower's side: for each item this machine lacks and the group plays, whom it asked,
/// who lends it and whether the lent copy is open for the player. Asks the room once,
/// takes the first grant, opens it; when the lender leaves (or its copy fails), asks again
/// without it; when nobody answers in time, says why.
///
/// Pure: the runtime sends the questions, opens the copies and reads the clock, and tells
/// what came of each.
public struct BorrowingBook: Sendable {
  /// Where one item stands.
  public enum Status: Hashable, Sendable {
    /// Asked the room at `since` (nanoseconds); no grant yet.
    case asking(since: Int64)
    /// Granted by `lender`; its copy is being opened.
    case opening(lender: String, lenderName: String)
    /// Open: the player reads it at `url`.
    case ready(url: String, lender: String, lenderName: String)
    /// Nobody lends it (in words).
    case unavailable(String)

    /// Who lends it (their participant id), once someone does.
    public var lender: String? {
      switch self {
      case .opening(let who, _), .ready(_, let who, _): who
      default: nil
      }
    }

    /// Who lends it, by name, once someone does.
    public var lenderName: String? {
      switch self {
      case .opening(_, let name), .ready(_, _, let name): name
      default: nil
      }
    }
  }

  /// What the runtime is to do.
  public enum Effect: Hashable, Sendable {
    /// Ask the room who lends `item`.
    case ask(item: String)
    /// Open the lent copy at `url`, checking the lender's certificate `fingerprint`.
    case open(item: String, url: String, fingerprint: String, lender: String)
    /// Let go of the copy of `item` read now (its lender left, or it failed), keeping the
    /// player's side open: the next lender's copy takes over, and the player sees a stall.
    case release(item: String)
    /// Close what was open for `item`: nobody lends it, or the group moved on.
    case close(item: String)
  }

  /// How long the room has to answer before the item is said to be lent by nobody.
  public static let answerWait: Int64 = 5_000_000_000
  /// At most this many items at once (the one watched and the next, with room to spare).
  public static let maximumItems = 4

  public private(set) var items: [String: Status] = [:]
  /// Lenders that failed for an item (left, or their copy could not be read): not asked again.
  private var failed: [String: Set<String>] = [:]
  /// The last refusal heard for each item, to say why nobody lends it.
  private var refusals: [String: String] = [:]

  public init() {}

  /// The group plays `item`, which this machine lacks.
  public mutating func need(_ item: String, now: Int64) -> [Effect] {
    // Asked once for as long as the group plays it (one lent later is found when the group
    // plays the item again).
    guard items[item] == nil else { return [] }
    guard items.count < Self.maximumItems else { return [] }
    items[item] = .asking(since: now)
    return [.ask(item: item)]
  }

  /// The group moved on: only `watched` is still needed.
  public mutating func keep(only watched: Set<String>) -> [Effect] {
    let gone = items.keys.filter { !watched.contains($0) }.sorted()
    for item in gone {
      items[item] = nil
      failed[item] = nil
      refusals[item] = nil
    }
    return gone.map { .close(item: $0) }
  }

  /// A member answered about `item`: a grant (`url`, `fingerprint`) or a refusal in words.
  public mutating func answered(
    item: String, by lender: String, named lenderName: String, url: String?,
    fingerprint: String?, refusal: String?, now: Int64
  ) -> [Effect] {
    guard case .asking = items[item] else {
      // The lender takes back what it lent (it stopped lending): read another's copy.
      if url == nil, let refusal, items[item]?.lender == lender {
        return failed(item: item, because: refusal, now: now)
      }
      return []
    }
    guard let url, let fingerprint, !(failed[item]?.contains(lender) ?? false) else {
      if let refusal { refusals[item] = "\(lenderName): \(refusal)" }
      return []
    }
    items[item] = .opening(lender: lender, lenderName: lenderName)
    return [.open(item: item, url: url, fingerprint: fingerprint, lender: lender)]
  }

  /// The lent copy of `item` is open for the player at `url`.
  public mutating func opened(item: String, url: String) -> [Effect] {
    guard case .opening(let lender, let name) = items[item] else { return [.close(item: item)] }
    items[item] = .ready(url: url, lender: lender, lenderName: name)
    return []
  }

  /// The lent copy of `item` could not be opened, or stopped being readable: another
  /// lender is asked.
  public mutating func failed(item: String, because why: String, now: Int64) -> [Effect] {
    let lender: String
    switch items[item] {
    case .opening(let who, let name), .ready(_, let who, let name):
      lender = who
      refusals[item] = "\(name)'s copy: \(why)"
    default: return []
    }
    failed[item, default: []].insert(lender)
    items[item] = .asking(since: now)
    return [.release(item: item), .ask(item: item)]
  }

  /// `lender` left the room: what it lent is asked of the others.
  public mutating func left(_ lender: String, now: Int64) -> [Effect] {
    var effects: [Effect] = []
    for (item, status) in items.sorted(by: { $0.key < $1.key }) {
      switch status {
      case .opening(let who, let name) where who == lender,
        .ready(_, let who, let name) where who == lender:
        refusals[item] = "\(name) left"
        items[item] = .asking(since: now)
        effects += [.release(item: item), .ask(item: item)]
      default: continue
      }
    }
    return effects
  }

  /// Items asked for longer than ``answerWait`` are lent by nobody: what was open for
  /// them (a player waiting for another lender) closes.
  public mutating func tick(now: Int64) -> [Effect] {
    var effects: [Effect] = []
    for (item, status) in items.sorted(by: { $0.key < $1.key }) {
      if case .asking(let since) = status, now - since >= Self.answerWait {
        items[item] = .unavailable(refusals[item] ?? "nobody in the room lends it")
        effects.append(.close(item: item))
      }
    }
    return effects
  }

  /// The earliest instant ``tick(now:)`` has something to do.
  public var nextDeadline: Int64? {
    items.values.compactMap {
      if case .asking(let since) = $0 { since + Self.answerWait } else { nil }
    }.min()
  }
}
