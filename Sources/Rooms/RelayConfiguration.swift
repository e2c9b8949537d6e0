import PlaybackCoordination

/// Limits and timings of a relay. Every limit exists so that one misbehaving peer cannot
/// hurt the others.
public struct RelayConfiguration: Sendable, Hashable {
  /// Longest accepted line, bytes.
  public var maximumFrameBytes: Int
  /// Longest messenger body, bytes (UTF-8).
  public var maximumMessageBytes: Int
  public var maximumParticipantsPerRoom: Int
  /// Sustained messages per second per connection, and the burst allowed above it.
  public var messagesPerSecond: Double
  public var messageBurst: Double
  /// Messenger bytes a member may have the relay deliver, a second and in a burst: each
  /// payload costs its encoded size once per recipient. Lines are counted by number above;
  /// this bounds what one member makes the relay write to the others (a hundred 64 KiB
  /// payloads of control characters in a second once swamped their recipient).
  public var messageBytesPerSecond: Double
  public var messageByteBurst: Double
  /// A member silent for this long is dropped, seconds. Participants ping every second.
  public var heartbeatTimeout: Double
  /// A new connection must say hello within this, seconds.
  public var helloTimeout: Double
  /// After a room's challenge, its proof must come within this, seconds. Longer than the
  /// hello's: the participant derives the room's keys first, which is slow on purpose
  /// (scrypt) and slower still on a small device or a busy machine.
  public var proofTimeout: Double
  /// A member whose connection closed keeps its place for this long, seconds, so that it
  /// can resume; after it, it is removed and the others are told.
  public var reconnectGrace: Double
  /// Messenger payloads kept per member, to resend those a dropped connection lost (or
  /// that arrived while it was away): at most this many, and this many bytes as they are
  /// encoded (see `EncodedSize`). A member's kept payloads travel in one line of a
  /// successor's feed, so the bytes stay well below a participant's frame limit (1 MiB).
  public var maximumPendingMessages: Int
  public var maximumPendingMessageBytes: Int
  /// The room's conversation kept for people who enter later (chat and reactions sent to
  /// everyone with `keep`, sealed or not): at most this many, and this many bytes as
  /// encoded, the oldest dropped first. Small enough to travel in a store row and in a
  /// successor's feed.
  public var maximumBacklogMessages: Int
  public var maximumBacklogBytes: Int
  /// How many of a member's latest request ids the relay remembers the answers to, so
  /// that requests resent after a reconnection apply once. Participants keep fewer than
  /// this unanswered.
  public var requestWindow: Int
  /// Bytes written to a connection and not yet taken by its reader before the relay
  /// counts it as too slow and closes it (it can resume), so that one stuck reader never
  /// grows the relay's memory.
  public var maximumQueuedBytes: Int
  /// At most one `resync` answer (the whole room state) per connection this often,
  /// seconds; more asks meanwhile are coalesced into one later answer.
  public var resyncInterval: Double
  /// Open connections at most, and from one address at most: one client cannot take
  /// every socket (or file descriptor) the relay has.
  public var maximumConnections: Int
  public var maximumConnectionsPerAddress: Int
  /// Rooms one address may have created that still exist (a room outlives its last
  /// connection by the reconnect grace).
  public var maximumRoomsPerAddress: Int
  public var engine: EngineConfiguration
  /// The one room this relay runs (`cowatch host`'s): a hello for any other name is
  /// refused in words, so that a mistyped room name does not open an empty room on a host's
  /// machine (nor a stranger a room of their own on a port forwarded to the internet).
  /// Nil: any room (`cowatch serve`).
  public var onlyRoom: String?
  /// Bytes all connections together may hold in lines not finished yet (a frame each at
  /// most): 2,000 connections each holding most of a frame would otherwise hold 128 MB.
  public var maximumPartialLineBytes: Int = 32 * 1_048_576
  /// The fingerprints of the certificates this relay serves with (a renewed one is added):
  /// what resume proofs addressed to it name. Empty over plain TCP (and in memory), where
  /// proofs name no relay.
  public var certificateFingerprints: [String] = []
  /// Whether the relay carries lent copies between members who cannot reach each other
  /// (tunnels, docs/LENDING.md), and how much; nil: it does not (`cowatch serve` without
  /// `--lend-relay-rate`), and asking is refused in words.
  public var tunnels: TunnelPolicy?
  /// How many rooms the relay keeps for their group's next night, paused where the group
  /// was: those whose owner asked (``RoomControl/kept``) and, with ``keepsAllRooms``, every
  /// room nobody is in. A request beyond it is refused; past it, the room kept without
  /// being asked for that was unused longest is dropped. 0 (a `cowatch host` relay, which
  /// ends with its room): none, and a room goes with its last member (after the reconnect
  /// grace).
  public var maximumKeptRooms: Int = 0
  /// Keep every room nobody is in, asked or not (`cowatch serve --keep-rooms`).
  public var keepsAllRooms = false
  /// Rooms kept at the request of members from one address: one address cannot take every
  /// place a relay keeps.
  public var maximumKeptRoomsPerAddress: Int = 8

  public init(
    maximumFrameBytes: Int = 64 * 1024,
    maximumMessageBytes: Int = 32 * 1024,
    maximumParticipantsPerRoom: Int = 64,
    messagesPerSecond: Double = 50,
    messageBurst: Double = 200,
    messageBytesPerSecond: Double = 256 * 1024,
    messageByteBurst: Double = 1_048_576,
    heartbeatTimeout: Double = 6,
    helloTimeout: Double = 5,
    proofTimeout: Double = 30,
    reconnectGrace: Double = 6,
    maximumPendingMessages: Int = 256,
    maximumPendingMessageBytes: Int = 256 * 1024,
    maximumBacklogMessages: Int = 50,
    maximumBacklogBytes: Int = 32 * 1024,
    requestWindow: Int = 512,
    maximumQueuedBytes: Int = 1 << 20,
    resyncInterval: Double = 1,
    maximumConnections: Int = 20_000,
    maximumConnectionsPerAddress: Int = 64,
    maximumRoomsPerAddress: Int = 32,
    engine: EngineConfiguration = .init()
  ) {
    self.maximumFrameBytes = maximumFrameBytes
    self.maximumMessageBytes = maximumMessageBytes
    self.maximumParticipantsPerRoom = maximumParticipantsPerRoom
    self.messagesPerSecond = messagesPerSecond
    self.messageBurst = messageBurst
    self.messageBytesPerSecond = messageBytesPerSecond
    self.messageByteBurst = messageByteBurst
    self.heartbeatTimeout = heartbeatTimeout
    self.helloTimeout = helloTimeout
    self.proofTimeout = proofTimeout
    self.reconnectGrace = reconnectGrace
    self.maximumPendingMessages = maximumPendingMessages
    self.maximumPendingMessageBytes = maximumPendingMessageBytes
    self.maximumBacklogMessages = maximumBacklogMessages
    self.maximumBacklogBytes = maximumBacklogBytes
    self.requestWindow = requestWindow
    self.maximumQueuedBytes = maximumQueuedBytes
    self.resyncInterval = resyncInterval
    self.maximumConnections = maximumConnections
    self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
    self.maximumRoomsPerAddress = maximumRoomsPerAddress
    self.engine = engine
  }
}
