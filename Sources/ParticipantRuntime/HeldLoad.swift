import PlaybackCoordination

/// A load a player wrapper holds back — a link waiting for its person's consent
/// (``ConsentingPlayer``), an item waiting for a lent copy (``BorrowingPlayer``) — and the
/// commands that came after it meanwhile, passed on in order once the load goes on.
struct HeldLoad: Sendable {
  var item: ItemID
  var at: Double
  var after: [PlayerCommand] = []
  /// The participant was told a problem: it loads again itself.
  var toldProblem = false

  /// Commands kept behind a load, at most.
  static let maximumAfter = 32

  /// Keeps `command` for later while a load is held; false when none is (it goes on now).
  static func keep(_ command: PlayerCommand, in held: inout HeldLoad?) -> Bool {
    guard held != nil else { return false }
    if held!.after.count < maximumAfter { held!.after.append(command) }
    return true
  }
}
