/// The wire protocol's version. A relay refuses a hello with another version, with an
/// error naming both, so that mismatched builds fail clearly instead of misbehaving.
///
/// - 1: nested values in Swift's synthesized `Codable` shapes (`{"pause":{…}}`, `_0`).
/// - 2: every nested union is `{"type":…, named fields}`; see docs/PROTOCOL.md.
/// - 3: timelines may carry a lead-in (`priorItemTime`, `priorRate`): seeks and rate
///   changes while playing happen at one scheduled instant, and replicas must agree.
/// - 4: rooms have an owner, a lock and a playback-control rule (`control` in the state,
///   the owner's commands and their changes), and may be protected by a password
///   (`challenge`/`proof`, sealed messages).
/// - 5: relays sharing one database: `redirect`, the welcome's `relays`, the error code
///   `storeUnavailable` and the rejection `unavailable`.
/// - 6: the error code `roomClosed` (a host's relay ending for good), and a rule replicas
///   must share: a switch from an episode the group finished plays the new one.
/// - 7: a rule replicas must share: under owner-only control, only the owner's
///   auto-advance goes on to the next episode.
/// - 8: rooms that outlive their host: `carry` (a participant offers to carry the room),
///   `succession`, `replica` and `handover`.
/// - 9: `locate` and `located`: a relay that lost its successors without a word asks them
///   whether one carries its room on (then it sends its own people there).
/// - 10: the error code `cutOff`: a relay that lost touch with most of its room refuses
///   changes (`unavailable`) until they are back, so that only the side of a cut network
///   that can hold an election goes on; the room's shared queue (`queue`, its commands and
///   changes, `notInQueue`); a participant's `personalOffset`.
/// - 11: links: an item whose id is an `http(s)://` URL (up to 2048 bytes) is opened by
///   every participant's player itself; replicas accept such ids in a series.
/// - 12: private messages sealed for their recipients: a participant's `sealingKey`
///   (`announceSealingKey`, `sealingKeyAnnounced`) and the messenger kind `private`; a
///   relay's own participant proves itself with `relayKey` in its `carry`.
/// - 13: a new session holds for those in the room to answer the offer: the wait cause
///   `answering`, the session's `invited`, the command `decline` and its change
///   `declined`, and the policy `answerTimeout`.
/// - 14: resume by proof: a new member's hello gives an Ed25519 `resumeKey`; a resume
///   carries a `proof` (a signature naming the room, the member and the relay's
///   certificate) instead of a secret, and relays keep only the public keys.
/// - 15: lent copies: a participant's `lender` (whose copy its player reads), the command
///   `watchFrom` and its change `watchingFrom`.
/// - 16: tunnels for lent copies: `tunnelOpen` (a member asks for one to a lender),
///   `tunnelTicket`, `tunnelRefused`, `tunnelCall` (the lender is called), a tunnel's first
///   line `tunnel` and the relay's `tunnelReady`, and the error code `tunnelRefused`; the
///   relay splices the two halves' bytes (TLS between the members) without reading them.
/// - 17: ready checks: a participant's `readyToWatch`, the room's `startWhenAllReady`, the
///   session's `readyCheck` and `countdown`, the commands `askReady`, `setReadyToWatch`,
///   `startAnyway`, `cancelReadyCheck`, `setStartWhenAllReady`, their changes
///   `readyCheckStarted`, `readyToWatchChanged`, `readyCheckEnded`,
///   `startWhenAllReadyChanged`, and the policies `readyCountdown`, `readyCheckTimeout`.
///   Also in 17, the room's conversation for people who enter later: `send` may say `keep` (chat or
///   a reaction to everyone, sealed or not), the relay keeps the latest such payloads (50,
///   32 KiB) and sends them to a new member once, right after its welcome, as `message`s
///   with `earlier`; the messenger kind `reaction` (`{"text":…,"at":…}`, bounded).
/// - 18: rooms kept on request: the room's `kept`, the owner's command `setKept` and its
///   change `keptChanged`, and the welcome's `keepsRooms` (whether this relay keeps rooms
///   nobody is in, so that a front offers it only where it works).
///
/// The line framing, the `hello` message and the `error` message keep their shape across
/// versions, so that a relay can always tell a peer of another version what is wrong.
public enum ProtocolVersion {
  public static let current = 18
}
