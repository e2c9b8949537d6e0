import PlaybackCoordination
import WireProtocol

/// Who may enter a room, and how: the checks a hello goes through (version, name, room
/// name, rooms per address, wrong resume secrets, the password's challenge and proof,
/// a locked, taken or full room), with the counters that keep guessing expensive.
///
/// It decides; ``RelayCore`` carries the decision out (a member resumed or added, a
/// challenge sent, a refusal).
struct RoomAdmission: Sendable {
  /// What to do with a hello.
  enum Decision: Sendable {
    case refuse(ErrorCode, String)
    /// The token names a member and knows its secret: it takes its place again.
    case resume(ResumeToken)
    /// The room has a password: challenge the entrant for its proof first.
    case challenge(name: String, protection: RoomProtection)
    /// A new member, named `name`, enters `room` (new if it did not exist).
    case enter(name: String, room: RelayCore.Room)
  }

  /// A hello as it came, with what the relay knows of its connection.
  struct Hello: Sendable {
    var version: Int
    var name: String
    var room: String
    var resume: ResumeToken?
    var protect: RoomProtection?
    /// A new member's resume key (see ``ClientMessage/hello(version:name:room:resume:protect:resumeKey:)``).
    var resumeKey: [UInt8]? = nil
    /// Where it comes from (nil: in-process, which no address limit counts).
    var address: String?
    /// Its sender already proved it knows the room's password.
    var proven = false
  }

  /// Wrong password proofs one address may send per ``wrongProofWindow`` seconds, and all
  /// addresses together for one room: past either, hellos for the room from that address
  /// (or, for the room's limit, from anyone new) wait out the window. Each guess costs the
  /// guesser a slow derivation too, but the relay should not be the oracle that makes
  /// guessing online cheap.
  static let maximumWrongProofsPerAddress = 10
  static let maximumWrongProofsPerRoom = 30
  static let wrongProofWindow = 60.0
  /// Wrong resume proofs one address may send per ``wrongResumeWindow`` seconds.
  static let maximumWrongResumes = 20
  static let wrongResumeWindow = 60.0

  private let configuration: RelayConfiguration
  private let verifyProof: RelayCore.ProofVerifier
  /// Checks resume proofs against the relay's certificates (one renewed is added).
  var resumeCheck: ResumeCheck
  /// Rooms that hellos from each address created and that still exist: a room outlives
  /// its last connection by the reconnect grace, so without this one address could keep
  /// thousands alive by connecting, saying hello and leaving.
  private var roomsCreated: [String: Int] = [:]
  /// Resumes with a wrong proof, per address.
  private var wrongResumes = WindowedCounter<String>(window: Self.wrongResumeWindow)
  /// Wrong password proofs, per address ("address A") and per room ("room R").
  private var wrongProofs = WindowedCounter<String>(window: Self.wrongProofWindow)

  init(configuration: RelayConfiguration, verifyProof: @escaping RelayCore.ProofVerifier) {
    self.configuration = configuration
    self.verifyProof = verifyProof
    resumeCheck = ResumeCheck(relays: configuration.certificateFingerprints, verify: verifyProof)
  }

  func proves(_ resume: ResumeToken, room: String, key: [UInt8]) -> Bool {
    resumeCheck.proves(resume, room: room, key: key)
  }

  /// Decides what becomes of `hello`, given the room it names if it exists.
  mutating func decide(_ hello: Hello, existing: RelayCore.Room?, at now: GroupInstant)
    -> Decision
  {
    guard hello.version == ProtocolVersion.current else {
      let error = WireError.unsupportedVersion(
        received: hello.version, supported: ProtocolVersion.current)
      return .refuse(.unsupportedVersion, error.description)
    }
    let name: String
    switch ParticipantName.validate(hello.name) {
    case .success(let valid): name = valid
    case .failure(let problem): return .refuse(.invalidHello, problem.description)
    }
    let roomName = hello.room
    guard RoomName.isValid(roomName) else {
      return .refuse(.invalidHello, "a room name is \(RoomName.rule)")
    }
    if let only = configuration.onlyRoom, roomName != only {
      return .refuse(
        .invalidHello,
        "there is no room \(roomName) here: this relay runs room \(only) only (is the room's name in your link or --room right?)"
      )
    }
    let limit = configuration.maximumRoomsPerAddress
    if existing == nil, let address = hello.address, roomsCreated[address, default: 0] >= limit {
      return .refuse(
        .tooManyRooms,
        "your address has opened \(limit) rooms that still exist; join one of them or wait until one empties"
      )
    }
    let room =
      existing
      ?? RelayCore.Room(
        engine: GroupEngine(configuration: configuration.engine), creator: hello.address,
        protection: hello.protect)

    if let resume = hello.resume, let member = room.members[resume.participant] {
      if proves(resume, room: roomName, key: member.resumeKey) { return .resume(resume) }
      // A resume naming a member whose key it does not hold. After a relay restart an
      // old token can name someone else's new id, so the hello still enters as a new
      // member (the welcome says `resumed: false`); but each one counts against its
      // address, and past the limit that address's resumes are refused for a while.
      if let address = hello.address,
        wrongResumes.record(address, at: now) > Self.maximumWrongResumes
      {
        return .refuse(
          .rateLimited,
          "too many resumes with a wrong proof from your address; wait \(Int(Self.wrongResumeWindow)) s"
        )
      }
    }

    // Entering anew a room with a password: first the proof (a resume above needed none:
    // its key entered with a proven entrant).
    if let protection = room.protection, existing != nil, !hello.proven {
      if let refusal = wrongProofLimit(address: hello.address, room: roomName, at: now) {
        return .refuse(.rateLimited, refusal)
      }
      return .challenge(name: name, protection: protection)
    }
    if existing != nil, room.protection == nil, hello.protect != nil {
      return .refuse(
        .roomNotProtected,
        "room \(roomName) exists without a password, so a password would protect nothing in it; choose another room name, or join without one"
      )
    }
    if room.engine.state.control.locked {
      let owner = room.engine.state.owner?.name
      return .refuse(
        .roomLocked,
        "room \(roomName) is locked\(owner.map { " by \($0)" } ?? ""): nobody new can enter until it is unlocked"
      )
    }
    let key = ParticipantName.key(name)
    if let taken = room.members.values.first(where: { ParticipantName.key($0.name) == key }) {
      return .refuse(
        .invalidHello, "the name \"\(taken.name)\" is taken in room \(roomName); choose another")
    }
    let capacity = configuration.maximumParticipantsPerRoom
    guard room.members.count < capacity else {
      return .refuse(
        .roomFull,
        "room \(roomName) is full (\(capacity) \(capacity == 1 ? "participant" : "participants"))")
    }
    return .enter(name: name, room: room)
  }

  /// Whether `signature` proves the password `entry` was challenged for. A wrong one
  /// counts against the sender's address and against the room.
  mutating func prove(
    _ entry: PendingEntry, signature: [UInt8], address: String?, at now: GroupInstant
  ) -> Bool {
    let signed = RoomChallenge.signedBytes(room: entry.room, nonce: entry.nonce)
    if verifyProof(signature, signed, entry.protection.verifier) { return true }
    for key in [address.map { "address \($0)" }, "room \(entry.room)"].compactMap({ $0 }) {
      _ = wrongProofs.record(key, at: now)
    }
    return false
  }

  /// A room that `address` created now exists: it counts against the address.
  mutating func created(by address: String) {
    roomsCreated[address, default: 0] += 1
  }

  /// A room that `address` created is gone (or no longer this relay's).
  mutating func removed(createdBy address: String) {
    let left = (roomsCreated[address] ?? 1) - 1
    roomsCreated[address] = left > 0 ? left : nil
  }

  /// Forgets the counts whose window has passed.
  mutating func forgetExpired(at now: GroupInstant) {
    wrongResumes.forgetExpired(at: now)
    wrongProofs.forgetExpired(at: now)
  }

  /// Why a hello for `room` from `address` may not try a password now, if it may not.
  private func wrongProofLimit(address: String?, room: String, at now: GroupInstant) -> String? {
    let wait = Int(Self.wrongProofWindow)
    if let address,
      wrongProofs.count("address \(address)", at: now) >= Self.maximumWrongProofsPerAddress
    {
      return "too many wrong passwords from your address; wait \(wait) s"
    }
    if wrongProofs.count("room \(room)", at: now) >= Self.maximumWrongProofsPerRoom {
      return "too many wrong passwords for room \(room); wait \(wait) s"
    }
    return nil
  }
}
