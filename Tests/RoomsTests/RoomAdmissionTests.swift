import PlaybackCoordination
import RoomCrypto
import Testing
import WireProtocol

@testable import Rooms

@Suite("Room admission: who may enter, and the counters against guessing")
struct RoomAdmissionTests {
  func g(_ seconds: Double) -> GroupInstant { GroupInstant(seconds: 100 + seconds) }

  func hello(
    _ name: String, room: String = "lobby", version: Int = ProtocolVersion.current,
    resume: ResumeToken? = nil, protect: RoomProtection? = nil, address: String? = "10.0.0.9"
  ) -> RoomAdmission.Hello {
    RoomAdmission.Hello(
      version: version, name: name, room: room, resume: resume, protect: protect,
      address: address)
  }

  static let annKey = ResumeKey.generate()

  /// A room with ann in it, her resume key ``annKey``.
  func roomWithAnn(protection: RoomProtection? = nil) -> RelayCore.Room {
    var room = RelayCore.Room(
      engine: GroupEngine(), creator: "10.0.0.1", protection: protection)
    room.members["p1"] = RelayCore.Member(
      name: "Ann", resumeKey: Self.annKey.publicKey, connection: nil,
      requests: RequestWindow(capacity: 8),
      messages: MessageLog(maximumCount: 8, maximumBytes: 1024))
    return room
  }

  func refusal(_ decision: RoomAdmission.Decision) -> ErrorCode? {
    if case .refuse(let code, _) = decision { code } else { nil }
  }

  @Test("a bad version, name or room name is refused before anything else")
  func malformedHellos() {
    var admission = RoomAdmission(configuration: .init(), verifyProof: { _, _, _ in false })
    #expect(
      refusal(admission.decide(hello("bob", version: 1), existing: nil, at: g(0)))
        == .unsupportedVersion)
    #expect(refusal(admission.decide(hello(""), existing: nil, at: g(0))) == .invalidHello)
    #expect(
      refusal(admission.decide(hello("bob", room: "a b"), existing: nil, at: g(0))) == .invalidHello
    )
  }

  @Test(
    "a host's relay runs its room only: a hello for another name (a typo, a stranger's room) is refused in words"
  )
  func onlyTheHostsRoom() {
    var configuration = RelayConfiguration()
    configuration.onlyRoom = "movie-night"
    var admission = RoomAdmission(configuration: configuration, verifyProof: { _, _, _ in false })
    let typo = admission.decide(hello("bob", room: "moive-night"), existing: nil, at: g(0))
    guard case .refuse(.invalidHello, let text) = typo else {
      Issue.record("a mistyped room was opened: \(typo)")
      return
    }
    #expect(
      text.hasPrefix("there is no room moive-night here: this relay runs room movie-night only"))
    guard case .enter = admission.decide(hello("bob", room: "movie-night"), existing: nil, at: g(0))
    else {
      Issue.record("the host's own room was refused")
      return
    }
  }

  @Test("a name is taken whatever its case; a full room says how full")
  func takenAndFull() {
    var admission = RoomAdmission(
      configuration: RelayConfiguration(maximumParticipantsPerRoom: 1),
      verifyProof: { _, _, _ in false })
    let decision = admission.decide(hello("ANN"), existing: roomWithAnn(), at: g(0))
    #expect(refusal(decision) == .invalidHello)
    let full = admission.decide(hello("bob"), existing: roomWithAnn(), at: g(0))
    guard case .refuse(.roomFull, let text) = full else {
      Issue.record("a full room let bob in: \(full)")
      return
    }
    #expect(text == "room lobby is full (1 participant)")
  }

  @Test("the right proof resumes; wrong ones enter anew until an address has sent too many")
  func wrongResumes() {
    var admission = RoomAdmission(
      configuration: .init(), verifyProof: RoomKeys.verify(signature:of:verifier:))
    let room = roomWithAnn()
    let proof = Self.annKey.prove(room: "lobby", participant: "p1", relay: nil)
    let right = admission.decide(
      hello("Ann", resume: ResumeToken(participant: "p1", proof: proof)), existing: room,
      at: g(0))
    guard case .resume = right else {
      Issue.record("the right proof did not resume: \(right)")
      return
    }
    let wrong = ResumeToken(participant: "p1", proof: Array(repeating: 3, count: 64))
    for attempt in 1...RoomAdmission.maximumWrongResumes {
      let decision = admission.decide(
        hello("eve\(attempt)", resume: wrong), existing: room, at: g(1))
      guard case .enter = decision else {
        Issue.record("wrong resume \(attempt) was not let in as a new member: \(decision)")
        return
      }
    }
    let over = admission.decide(hello("eve", resume: wrong), existing: room, at: g(2))
    #expect(refusal(over) == .rateLimited)
    let otherAddress = admission.decide(
      hello("eve", resume: wrong, address: "10.0.0.10"), existing: room, at: g(2))
    #expect(refusal(otherAddress) == nil, "the limit is per address")
    let later = admission.decide(
      hello("eve", resume: wrong), existing: room, at: g(1 + RoomAdmission.wrongResumeWindow + 1))
    #expect(refusal(later) == nil, "the window passed")
  }

  @Test("a protected room challenges; wrong proofs count per address and per room")
  func passwords() {
    let protection = RoomProtection(
      derivation: KeyDerivation(salt: Array(repeating: 1, count: 16)), verifier: [9])
    var admission = RoomAdmission(
      configuration: .init(), verifyProof: { signature, _, _ in signature == [1] })
    let room = roomWithAnn(protection: protection)
    guard case .challenge(let name, _) = admission.decide(hello("bob"), existing: room, at: g(0))
    else {
      Issue.record("a protected room did not challenge")
      return
    }
    #expect(name == "bob")
    let entry = PendingEntry(
      name: "bob", room: "lobby", protection: protection, nonce: [7], resumeKey: nil,
      challenged: g(0))
    let right = admission.prove(entry, signature: [1], address: "10.0.0.9", at: g(0))
    #expect(right)
    for _ in 0..<RoomAdmission.maximumWrongProofsPerAddress {
      let wrong = admission.prove(entry, signature: [2], address: "10.0.0.9", at: g(1))
      #expect(!wrong)
    }
    #expect(refusal(admission.decide(hello("bob"), existing: room, at: g(2))) == .rateLimited)
    let elsewhere = admission.decide(hello("bob", address: "10.0.0.10"), existing: room, at: g(2))
    guard case .challenge = elsewhere else {
      Issue.record("another address was refused before the room's own limit: \(elsewhere)")
      return
    }
    let open = admission.decide(
      hello("bob", room: "open", protect: protection), existing: nil, at: g(2))
    guard case .enter = open else {
      Issue.record("a new room with a password was not created: \(open)")
      return
    }
    let unprotected = RelayCore.Room(engine: GroupEngine(), creator: nil, protection: nil)
    let late = admission.decide(hello("bob", protect: protection), existing: unprotected, at: g(2))
    #expect(refusal(late) == .roomNotProtected)
  }

  @Test("an address may keep only so many rooms; one gone frees a place")
  func roomsPerAddress() {
    var admission = RoomAdmission(
      configuration: RelayConfiguration(maximumRoomsPerAddress: 2),
      verifyProof: { _, _, _ in false })
    admission.created(by: "10.0.0.9")
    admission.created(by: "10.0.0.9")
    #expect(
      refusal(admission.decide(hello("bob", room: "third"), existing: nil, at: g(0)))
        == .tooManyRooms)
    #expect(
      refusal(admission.decide(hello("bob"), existing: roomWithAnn(), at: g(0))) == nil,
      "joining is not creating")
    admission.removed(createdBy: "10.0.0.9")
    #expect(refusal(admission.decide(hello("bob", room: "third"), existing: nil, at: g(0))) == nil)
  }
}

@Suite("Rate counters")
struct RateCounterTests {
  func g(_ seconds: Double) -> GroupInstant { GroupInstant(seconds: 100 + seconds) }

  @Test("a windowed count starts again once its window has passed, and is then forgotten")
  func windowedCounter() {
    var counter = WindowedCounter<String>(window: 10)
    #expect(counter.record("a", at: g(0)) == 1)
    #expect(counter.record("a", at: g(9)) == 2)
    #expect(counter.count("a", at: g(10)) == 2)
    #expect(counter.count("a", at: g(10.5)) == 0)
    #expect(counter.record("a", at: g(10.5)) == 1)
    counter.forgetExpired(at: g(30))
    #expect(counter.count("a", at: g(10.5)) == 0, "forgotten, not only expired")
  }

  @Test("a token bucket allows its burst at once, then its rate")
  func tokenBucket() {
    var bucket = TokenBucket(burst: 3, at: g(0))
    let burst = (0..<4).map { _ in bucket.take(at: g(0), rate: 2, burst: 3) }
    #expect(burst == [true, true, true, false])
    let refilled = bucket.take(at: g(0.5), rate: 2, burst: 3)
    let empty = bucket.take(at: g(0.5), rate: 2, burst: 3)
    let later = bucket.take(at: g(100), rate: 2, burst: 3)
    #expect(refilled && !empty && later)
    #expect(bucket.tokens == 2, "refilled to the burst, not beyond")
  }
}
