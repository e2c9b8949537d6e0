import PlaybackCoordination
import WireProtocol

/// Which relay a participant connects to next, when several relays share one database: the
/// one it was started with, the one a `redirect` named, or, when that one stops answering,
/// the others its last welcome listed, in turn.
///
/// A value type the core owns; the runtime only connects where ``current`` says.
struct RelayRoute: Sendable {
  /// Where the next connection goes; nil: the relay the participant was started with.
  private(set) var current: RelayEndpoint?
  /// Other relays of the database, from the last welcome.
  private(set) var known: [RelayEndpoint] = []
  /// Redirects followed since the last welcome: a loop of them ends as a failed attempt.
  private var redirectsInARow = 0
  /// When connecting to each relay (by address) last failed.
  private var failures: [String: LocalInstant] = [:]
  /// The starting relay's address, when known.
  var home: String?

  /// Redirects followed without a welcome before giving up on this attempt.
  static let maximumRedirects = 8
  /// A relay that failed this recently is not tried again because a redirect names it
  /// (its room's lease has not expired yet): the participant tries another relay instead.
  static let failureMemory = 2.0

  /// The members' relays that would carry the room if its relay goes, in order (named by
  /// the relay, so trusted as a redirect is).
  private(set) var successors: [RelayEndpoint] = []

  /// The room left the relay this participant started with for a successor's: that relay
  /// is no way back to the room any more (were it to run again, it would be a stranger's
  /// room there, or its own machine coming back, which sends everyone on anyway).
  private(set) var homeRetired = false

  /// The relays this participant may reconnect through: where it started (until the room
  /// moved to a successor), then the others of its database, then the room's successors.
  var candidates: [RelayEndpoint?] {
    let others = known + successors.filter { s in !known.contains { $0.address == s.address } }
    return (homeRetired ? [] : [nil]) + others.map { Optional($0) }
  }

  /// The room moved to a successor's relay (handed over, or elected there).
  mutating func retireHome() {
    homeRetired = true
    if current == nil, let first = candidates.first { current = first }
  }

  /// Whether `relay` is one of the room's successors (as last named).
  func isSuccessor(_ relay: RelayEndpoint?) -> Bool {
    guard let relay else { return false }
    return successors.contains { $0.address == relay.address }
  }

  /// The relay named the room's successors.
  mutating func named(successors relays: [RelayEndpoint]) { successors = relays }

  /// A welcome came: the relays it lists are the ones to fall back on.
  mutating func welcomed(listing relays: [RelayEndpoint]) {
    var seen: Set<String> = home.map { [$0] } ?? []
    known = relays.filter { seen.insert($0.address).inserted && $0 != current }
    if let current, !known.contains(current) { known.insert(current, at: 0) }
    redirectsInARow = 0
  }

  /// A relay said the room is at `endpoint`: whether to connect there now.
  mutating func redirect(to endpoint: RelayEndpoint, at now: LocalInstant) -> Bool {
    redirectsInARow += 1
    guard redirectsInARow <= Self.maximumRedirects else { return false }
    if let failed = failures[endpoint.address],
      now.seconds(since: failed) < Self.failureMemory
    {
      return false
    }
    current = endpoint
    return true
  }

  /// Connecting to ``current`` failed (or it refused): the next candidate gets the next
  /// attempt. Returns whether there is another relay to try.
  @discardableResult
  mutating func failed(at now: LocalInstant) -> Bool {
    failures[current?.address ?? home ?? ""] = now
    let all = candidates
    let index =
      all.firstIndex(of: current)
      ?? (current?.address == home ? all.firstIndex(of: nil) : nil)
    guard let index else {
      // Where it was is no candidate any more (the home it retired): the first one is.
      guard let first = all.first else { return false }
      current = first
      return true
    }
    guard all.count > 1 else { return false }
    current = all[(index + 1) % all.count]
    return true
  }

  /// Whether there are other relays to try (the waits between attempts stay short).
  var hasAlternatives: Bool { !known.isEmpty || !successors.isEmpty }
}
