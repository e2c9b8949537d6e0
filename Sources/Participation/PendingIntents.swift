import Narration
import PlaybackCoordination

/// What this participant last asked the group for and has not heard answered: a
/// position, a speed, playing or paused.
///
/// Relative requests (ten seconds on, a little faster, play/pause) start from these, so
/// that quick presses of a key add up instead of each starting from a state the group has
/// not reached yet. Each is forgotten when the request that set it is answered.
struct PendingIntents: Sendable {
  /// A position asked for, moving on at the rate the group would play it.
  private struct Position: Sendable {
    var item: ItemID
    var position: Double
    var at: LocalInstant
    var rate: Double
    var requestID: UInt64

    func position(at now: LocalInstant) -> Double {
      position + rate * max(0, now.seconds(since: at))
    }
  }

  private var position: Position?
  private var rate: (rate: Double, requestID: UInt64)?
  private var playing: (playing: Bool, requestID: UInt64)?

  /// A relative seek that moves less than this (seconds) moves nothing: it is refused here.
  static let sameSpot = 0.05

  /// The position asked for in `item`, where it has got to by `now`.
  func position(in item: ItemID, at now: LocalInstant) -> Double? {
    position.flatMap { $0.item == item ? $0.position(at: now) : nil }
  }

  var requestedRate: Double? { rate?.rate }

  /// Turns a person's request into what goes to the relay. `current` is where the player
  /// (or else the group) is now; relative intents start from what was asked for last.
  /// A request that would change nothing fails here, with what is already so.
  func resolve(
    _ request: ParticipantRequest, session: WatchSession?, current: Double?,
    allowedRates: ClosedRange<Double>, at now: LocalInstant
  ) -> Result<OutboxRequest.Body, ClientError> {
    switch request {
    case .command(let command): .success(.command(command))
    case .message(let kind, let text, let to): .success(.message(kind: kind, body: text, to: to))
    case .react(let text):
      if let refusal = Reaction.refusal(text) {
        .failure(.invalid(refusal))
      } else {
        .success(
          .message(
            kind: .reaction, body: Reaction(text: text, at: current ?? 0).body, to: .all))
      }
    case .playback(let intent):
      resolve(intent, session: session, current: current, allowedRates: allowedRates, at: now)
        .map { .command($0) }
    }
  }

  private func resolve(
    _ intent: PlaybackIntent, session: WatchSession?, current: Double?,
    allowedRates: ClosedRange<Double>, at now: LocalInstant
  ) -> Result<GroupCommand, ClientError> {
    switch intent {
    case .pause:
      guard let session else { return .failure(.notInSession) }
      let at = position(in: session.item.id, at: now) ?? current ?? session.timeline.itemTime
      return .success(.pause(item: session.item.id, at: min(max(at, 0), session.item.duration)))
    case .play(let rate):
      return .success(.play(item: session?.item.id, rate: rate))
    case .togglePlayback:
      guard let session else { return .failure(.notInSession) }
      let moving = playing?.playing ?? (session.status == .playing || session.status == .waiting)
      return resolve(
        moving ? .pause : .play(rate: nil), session: session, current: current,
        allowedRates: allowedRates, at: now)
    case .seek(let to):
      return .success(.seek(item: session?.item.id, to: to))
    case .seekBy(let delta):
      guard let session else { return .failure(.notInSession) }
      let from = position(in: session.item.id, at: now) ?? current ?? session.timeline.itemTime
      let end = session.item.duration
      let target = min(max(from + delta, 0), end)
      // A step past the start or the end: the group is already there; said here, not
      // broadcast again as a jump to the same place.
      if abs(target - min(max(from, 0), end)) < Self.sameSpot {
        let at = TimeFormat.clock(target)
        return .failure(
          .unchanged(target >= end ? "already at the end (\(at))" : "already at \(at)"))
      }
      return .success(.seek(item: session.item.id, to: target))
    case .setRate(let rate):
      return .success(.setRate(item: session?.item.id, rate: rate))
    case .changeRate(let delta):
      guard let session else { return .failure(.notInSession) }
      let base = rate?.rate ?? session.playbackRate
      let rate = min(max(base + delta, allowedRates.lowerBound), allowedRates.upperBound)
      // Past the fastest or slowest speed, in either direction: said here, not broadcast.
      if abs(rate - base) < 0.001 {
        return .failure(.unchanged("speed is already \(RateFormat.text(rate))"))
      }
      return .success(.setRate(item: session.item.id, rate: rate))
    }
  }

  /// Remembers the target request `id` asks for, so that the next relative request starts
  /// from it.
  mutating func asked(
    _ command: GroupCommand, id: UInt64, in session: WatchSession?,
    at now: LocalInstant
  ) {
    guard let session else { return }
    let currentRate = rate?.rate ?? session.playbackRate
    let moving = session.status == .playing || session.status == .waiting
    switch command {
    case .seek(let item, let to):
      position = Position(
        item: item ?? session.item.id, position: to, at: now, rate: moving ? currentRate : 0,
        requestID: id)
    case .pause(let item, let at):
      position = Position(
        item: item ?? session.item.id, position: at, at: now, rate: 0, requestID: id)
      playing = (false, id)
    case .play(_, let newRate):
      playing = (true, id)
      if var target = position {
        target.position = target.position(at: now)
        target.at = now
        target.rate = newRate ?? currentRate
        target.requestID = id
        position = target
      }
    case .setRate(_, let newRate):
      rate = (newRate, id)
      if var target = position, target.rate > 0 {
        target.position = target.position(at: now)
        target.at = now
        target.rate = newRate
        position = target
      }
    default:
      break
    }
  }

  /// Request `id` was answered: whatever it asked for is the group's business now.
  mutating func answered(_ id: UInt64) {
    if position?.requestID == id { position = nil }
    if rate?.requestID == id { rate = nil }
    if playing?.requestID == id { playing = nil }
  }
}
