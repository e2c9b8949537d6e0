import PlaybackCoordination
import WireProtocol

/// This participant's requests that the relay has not answered, in the order they were
/// asked for.
///
/// Ids are given here, in that order. After a reconnection everything goes again in order
/// before anything new: the relay's window of recent ids applies each request once, so a
/// resend is safe; what went stale while the connection was down is settled with `expire`
/// instead of applied anew.
struct Outbox: Sendable {
  private(set) var requests: [OutboxRequest] = []
  private var nextID: UInt64 = 1

  /// What to put on the wire for a queued request after a welcome.
  enum Resend: Sendable {
    case send(OutboxRequest)
    /// Too old to apply now: the relay settles it (rejects it) without applying it.
    case expire(id: UInt64)
  }

  var count: Int { requests.count }

  /// Queues a request under the next id and returns it.
  mutating func add(
    _ body: OutboxRequest.Body, origin: OutboxRequest.Origin, ticket: UInt64?,
    at now: LocalInstant, answerTimeout: Double
  ) -> OutboxRequest {
    let request = OutboxRequest(
      id: nextID, body: body, origin: origin, askedAt: now, ticket: ticket,
      answerDeadline: now.advanced(bySeconds: answerTimeout))
    nextID += 1
    requests.append(request)
    return request
  }

  /// The relay answered `id`: the request leaves (nil: not queued, or answered already).
  mutating func settle(_ id: UInt64) -> OutboxRequest? {
    guard let index = requests.firstIndex(where: { $0.id == id }) else { return nil }
    return requests.remove(at: index)
  }

  func contains(origin: OutboxRequest.Origin) -> Bool {
    requests.contains { $0.origin == origin }
  }

  /// When the first waiting caller's answer timeout passes.
  var nextAnswerDeadline: LocalInstant? {
    requests.lazy.filter { $0.ticket != nil }.map(\.answerDeadline).min()
  }

  /// The tickets whose answer timeout has passed. Their callers stop waiting; the requests
  /// stay queued (and are resent) until the relay answers, since they may yet apply.
  mutating func takeOverdueTickets(at now: LocalInstant) -> [UInt64] {
    var overdue: [UInt64] = []
    for index in requests.indices {
      guard let ticket = requests[index].ticket, requests[index].answerDeadline <= now else {
        continue
      }
      requests[index].ticket = nil
      overdue.append(ticket)
    }
    return overdue
  }

  /// What goes again after a welcome, in order. A request asked for more than `window`
  /// seconds ago expires; so does every playback command of the person's after the first
  /// that expires, since they are one sequence.
  mutating func resend(at now: LocalInstant, window: Double) -> [Resend] {
    var sequenceExpired = false
    var resends: [Resend] = []
    for index in requests.indices {
      let isCommand = requests[index].isUserCommand
      if now.seconds(since: requests[index].askedAt) > window || (isCommand && sequenceExpired) {
        if isCommand { sequenceExpired = true }
        requests[index].expiring = true
        resends.append(.expire(id: requests[index].id))
      } else {
        resends.append(.send(requests[index]))
      }
    }
    return resends
  }

  /// Empties the outbox (the participant stops) and returns what was in it.
  mutating func removeAll() -> [OutboxRequest] {
    defer { requests = [] }
    return requests
  }
}
