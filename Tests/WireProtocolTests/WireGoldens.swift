import PlaybackCoordination

@testable import WireProtocol

/// At least one pinned JSON form for every case of every enum that crosses the wire, and
/// for every message. ``WireCaseNames`` checks that no case is missing.
enum Golden {
  static let commands: [(GroupCommand, String)] = [
    (.enter(name: "ann"), #"{"name":"ann","type":"enter"}"#),
    (.enter(name: "sam", origin: .syncplay), #"{"name":"sam","origin":"syncplay","type":"enter"}"#),
    (.exit(reason: .timedOut), #"{"reason":"timedOut","type":"exit"}"#),
    (.setConnected(false), #"{"connected":false,"type":"setConnected"}"#),
    (
      .start(series: Fixture.series, item: "harbour/s1e1"),
      #"{"item":"harbour/s1e1","series":\#(Fixture.seriesJSON),"type":"start"}"#
    ),
    (.join, #"{"type":"join"}"#),
    (.decline, #"{"type":"decline"}"#),
    (.leave, #"{"type":"leave"}"#),
    (.end, #"{"type":"end"}"#),
    (.play(item: "harbour/s1e1", rate: 1.5), #"{"item":"harbour/s1e1","rate":1.5,"type":"play"}"#),
    (.play(item: nil, rate: nil), #"{"type":"play"}"#),
    (.pause(item: "harbour/s1e1", at: 12.5), #"{"at":12.5,"item":"harbour/s1e1","type":"pause"}"#),
    (.pause(item: nil, at: 3), #"{"at":3,"type":"pause"}"#),
    (.seek(item: "harbour/s1e1", to: 60), #"{"item":"harbour/s1e1","to":60,"type":"seek"}"#),
    (
      .setRate(item: "harbour/s1e1", rate: 1.25),
      #"{"item":"harbour/s1e1","rate":1.25,"type":"setRate"}"#
    ),
    (
      .replace(series: Fixture.series, item: "harbour/s1e2", confirmed: true),
      #"{"confirmed":true,"item":"harbour/s1e2","series":\#(Fixture.seriesJSON),"type":"replace"}"#
    ),
    (.advance(endedItem: "harbour/s1e1"), #"{"endedItem":"harbour/s1e1","type":"advance"}"#),
    (.beginSuspension(.interrupted), #"{"reason":"interrupted","type":"beginSuspension"}"#),
    (.beginSuspension("phone call"), #"{"reason":"phone call","type":"beginSuspension"}"#),
    (
      .endSuspension(.interrupted, proposing: 90),
      #"{"proposing":90,"reason":"interrupted","type":"endSuspension"}"#
    ),
    (.endSuspension(nil, proposing: nil), #"{"type":"endSuspension"}"#),
    (.setReadiness(.ready), #"{"readiness":"ready","type":"setReadiness"}"#),
    (.setAutoAdvance(true), #"{"enabled":true,"type":"setAutoAdvance"}"#),
    (
      .report(roundTrip: 0.25, startupLatency: 0.5, playerOffset: -0.125),
      #"{"playerOffset":-0.125,"roundTrip":0.25,"startupLatency":0.5,"type":"report"}"#
    ),
    (
      .report(roundTrip: 0.25, startupLatency: 0.5, playerOffset: nil),
      #"{"roundTrip":0.25,"startupLatency":0.5,"type":"report"}"#
    ),
    (.setLocked(true), #"{"locked":true,"type":"setLocked"}"#),
    (.setPlaybackControl(.owner), #"{"playback":"owner","type":"setPlaybackControl"}"#),
    (.transferOwnership(to: "p2"), #"{"participant":"p2","type":"transferOwnership"}"#),
    (.remove("p3"), #"{"participant":"p3","type":"remove"}"#),
    (
      .queueAdd(series: Fixture.series, item: "harbour/s1e2"),
      #"{"item":"harbour/s1e2","series":\#(Fixture.seriesJSON),"type":"queueAdd"}"#
    ),
    (.queueRemove(entry: 3), #"{"entry":3,"type":"queueRemove"}"#),
    (.queueMove(entry: 3, to: 0), #"{"entry":3,"to":0,"type":"queueMove"}"#),
    (.queueClear, #"{"type":"queueClear"}"#),
    (.playQueued(entry: 3), #"{"entry":3,"type":"playQueued"}"#),
    (.setPersonalOffset(0.2), #"{"seconds":0.2,"type":"setPersonalOffset"}"#),
    (
      .announceSealingKey(String(repeating: "ab", count: 32)),
      #"{"key":"\#(String(repeating: "ab", count: 32))","type":"announceSealingKey"}"#
    ),
    (.watchFrom("p1"), #"{"lender":"p1","type":"watchFrom"}"#),
    (.watchFrom(nil), #"{"type":"watchFrom"}"#),
    (.askReady, #"{"type":"askReady"}"#),
    (.setReadyToWatch(true), #"{"ready":true,"type":"setReadyToWatch"}"#),
    (.startAnyway, #"{"type":"startAnyway"}"#),
    (.cancelReadyCheck, #"{"type":"cancelReadyCheck"}"#),
    (.setStartWhenAllReady(true), #"{"enabled":true,"type":"setStartWhenAllReady"}"#),
    (.setKept(true), #"{"kept":true,"type":"setKept"}"#),
  ]

  static let changeKinds: [(ChangeKind, String)] = [
    (.entered, #"{"type":"entered"}"#),
    (.exited(.quit), #"{"reason":"quit","type":"exited"}"#),
    (.connectionChanged(connected: false), #"{"connected":false,"type":"connectionChanged"}"#),
    (.sessionStarted(item: "harbour/s1e1"), #"{"item":"harbour/s1e1","type":"sessionStarted"}"#),
    (.joined, #"{"type":"joined"}"#),
    (.declined, #"{"type":"declined"}"#),
    (.left, #"{"type":"left"}"#),
    (.sessionEnded, #"{"type":"sessionEnded"}"#),
    (
      .played(at: 12.5, rate: 1, startsAt: GroupInstant(nanoseconds: 3_600_000_000_000)),
      #"{"at":12.5,"rate":1,"startsAt":3600000000000,"type":"played"}"#
    ),
    (.paused(at: 754.25), #"{"at":754.25,"type":"paused"}"#),
    (.seeked(to: 60), #"{"to":60,"type":"seeked"}"#),
    (.rateChanged(rate: 1.25), #"{"rate":1.25,"type":"rateChanged"}"#),
    (
      .replaced(from: "harbour/s1e1", to: "harbour/s1e2"),
      #"{"from":"harbour/s1e1","to":"harbour/s1e2","type":"replaced"}"#
    ),
    (
      .autoAdvanced(from: "harbour/s1e1", to: "harbour/s1e2"),
      #"{"from":"harbour/s1e1","to":"harbour/s1e2","type":"autoAdvanced"}"#
    ),
    (.reachedEnd(item: "harbour/s1e2"), #"{"item":"harbour/s1e2","type":"reachedEnd"}"#),
    (.suspended(.userActionRequired), #"{"reason":"userActionRequired","type":"suspended"}"#),
    (.resumed(.interrupted), #"{"reason":"interrupted","type":"resumed"}"#),
    (.resumed(nil), #"{"type":"resumed"}"#),
    (.resumedProposing(time: 90), #"{"time":90,"type":"resumedProposing"}"#),
    (.readinessChanged(.loading), #"{"readiness":"loading","type":"readinessChanged"}"#),
    (
      .waitStarted(participant: "p2", cause: .suspended(.stallRecovery)),
      #"{"cause":{"reason":"stallRecovery","type":"suspended"},"participant":"p2","type":"waitStarted"}"#
    ),
    (.waitTimedOut(participant: "p2"), #"{"participant":"p2","type":"waitTimedOut"}"#),
    (
      .waitEnded(at: 12.5, startsAt: GroupInstant(nanoseconds: 3_600_000_000_000)),
      #"{"at":12.5,"startsAt":3600000000000,"type":"waitEnded"}"#
    ),
    (.autoAdvanceChanged(false), #"{"enabled":false,"type":"autoAdvanceChanged"}"#),
    (.reported, #"{"type":"reported"}"#),
    (.sealingKeyAnnounced, #"{"type":"sealingKeyAnnounced"}"#),
    (.watchingFrom("p1"), #"{"lender":"p1","type":"watchingFrom"}"#),
    (.watchingFrom(nil), #"{"type":"watchingFrom"}"#),
    (
      .readyCheckStarted(deadline: GroupInstant(nanoseconds: 3_720_000_000_000)),
      #"{"deadline":3720000000000,"type":"readyCheckStarted"}"#
    ),
    (.readyToWatchChanged(false), #"{"ready":false,"type":"readyToWatchChanged"}"#),
    (
      .readyCheckEnded(.allReady, startsAt: GroupInstant(nanoseconds: 3_603_000_000_000)),
      #"{"end":"allReady","startsAt":3603000000000,"type":"readyCheckEnded"}"#
    ),
    (.readyCheckEnded(.timedOut, startsAt: nil), #"{"end":"timedOut","type":"readyCheckEnded"}"#),
    (.startWhenAllReadyChanged(true), #"{"enabled":true,"type":"startWhenAllReadyChanged"}"#),
    (.keptChanged(false), #"{"kept":false,"type":"keptChanged"}"#),
    (.lockChanged(true), #"{"locked":true,"type":"lockChanged"}"#),
    (
      .playbackControlChanged(.everyone),
      #"{"playback":"everyone","type":"playbackControlChanged"}"#
    ),
    (.ownerChanged(to: "p2"), #"{"to":"p2","type":"ownerChanged"}"#),
    (
      .removed(participant: "p3", name: "eve"),
      #"{"name":"eve","participant":"p3","type":"removed"}"#
    ),
    (
      .queueAdded(entry: 3, item: "harbour/s1e2"),
      #"{"entry":3,"item":"harbour/s1e2","type":"queueAdded"}"#
    ),
    (
      .queueRemoved(entry: 3, item: "harbour/s1e2"),
      #"{"entry":3,"item":"harbour/s1e2","type":"queueRemoved"}"#
    ),
    (
      .queueMoved(entry: 3, item: "harbour/s1e2", to: 0),
      #"{"entry":3,"item":"harbour/s1e2","to":0,"type":"queueMoved"}"#
    ),
    (.queueCleared, #"{"type":"queueCleared"}"#),
    (.personalOffsetChanged(-0.15), #"{"seconds":-0.15,"type":"personalOffsetChanged"}"#),
    (
      .queuePlayed(entry: 3, from: "harbour/s1e1", to: "harbour/s1e2"),
      #"{"entry":3,"from":"harbour/s1e1","to":"harbour/s1e2","type":"queuePlayed"}"#
    ),
    (
      .queuePlayed(entry: 3, from: nil, to: "harbour/s1e2"),
      #"{"entry":3,"to":"harbour/s1e2","type":"queuePlayed"}"#
    ),
  ]

  static let rejections: [(Rejection, String)] = [
    (.unknownParticipant("p9"), #"{"participant":"p9","type":"unknownParticipant"}"#),
    (.alreadyInRoom("p1"), #"{"participant":"p1","type":"alreadyInRoom"}"#),
    (.notJoined, #"{"type":"notJoined"}"#),
    (.alreadyJoined, #"{"type":"alreadyJoined"}"#),
    (.noSession, #"{"type":"noSession"}"#),
    (
      .suspended([.interrupted, .changingTime]),
      #"{"reasons":["interrupted","changingTime"],"type":"suspended"}"#
    ),
    (.notSuspended, #"{"type":"notSuspended"}"#),
    (
      .staleItem(sent: "harbour/s1e1", current: "harbour/s1e2"),
      #"{"current":"harbour/s1e2","sent":"harbour/s1e1","type":"staleItem"}"#
    ),
    (.unknownItem("harbour/s9e9"), #"{"item":"harbour/s9e9","type":"unknownItem"}"#),
    (.notInQueue(entry: 3), #"{"entry":3,"type":"notInQueue"}"#),
    (
      .positionOutOfRange(position: 900, duration: 150),
      #"{"duration":150,"position":900,"type":"positionOutOfRange"}"#
    ),
    (
      .rateOutOfRange(rate: 9, allowed: 0.25...4),
      #"{"allowed":{"max":4,"min":0.25},"rate":9,"type":"rateOutOfRange"}"#
    ),
    (.needsConfirmation("harbour/s1e2"), #"{"item":"harbour/s1e2","type":"needsConfirmation"}"#),
    (
      .advanceNotApplicable("harbour/s1e1"),
      #"{"item":"harbour/s1e1","type":"advanceNotApplicable"}"#
    ),
    (.emptySeries, #"{"type":"emptySeries"}"#),
    (.invalidName(""), #"{"name":"","type":"invalidName"}"#),
    (
      .invalidValue("only the relay sends that command"),
      #"{"message":"only the relay sends that command","type":"invalidValue"}"#
    ),
    (.notOwner(owner: "ann"), #"{"owner":"ann","type":"notOwner"}"#),
    (.ownerControlsPlayback(owner: nil), #"{"type":"ownerControlsPlayback"}"#),
    (
      .unavailable("not applied: the relay cannot store changes now"),
      #"{"message":"not applied: the relay cannot store changes now","type":"unavailable"}"#
    ),
  ]

  static let waitCauses: [(WaitCause, String)] = [
    (.answering, #"{"type":"answering"}"#),
    (.loading, #"{"type":"loading"}"#),
    (.stalled, #"{"type":"stalled"}"#),
    (.suspended(.interrupted), #"{"reason":"interrupted","type":"suspended"}"#),
  ]

  static let stepInputs: [(StepInput, String)] = [
    (.command(.join, from: "p3"), #"{"command":{"type":"join"},"from":"p3","type":"command"}"#),
    (.tick, #"{"type":"tick"}"#),
  ]

  static let recipients: [(Recipients, String)] = [
    (.all, #"{"type":"all"}"#),
    (.only(["p2", "p5"]), #"{"participants":["p2","p5"],"type":"only"}"#),
  ]

  static let clientMessages: [(ClientMessage, String)] = [
    (
      .hello(version: 2, name: "ann", room: "lobby", resume: nil),
      #"{"name":"ann","room":"lobby","type":"hello","version":2}"#
    ),
    (
      .hello(version: 2, name: "ann", room: "lobby", resume: Fixture.token),
      #"{"name":"ann","resume":\#(Fixture.tokenJSON),"room":"lobby","type":"hello","version":2}"#
    ),
    (
      .hello(
        version: 6, name: "ann", room: "movie-night", resume: nil,
        protect: RoomProtection(
          derivation: KeyDerivation(salt: Array(0..<16), cost: 17),
          verifier: Array(repeating: 0xAB, count: 32))),
      #"{"name":"ann","protect":{"derivation":{"cost":17,"salt":"AAECAwQFBgcICQoLDA0ODw=="},"verifier":"q6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6s="},"room":"movie-night","type":"hello","version":6}"#
    ),
    (
      .proof(signature: Array(repeating: 0x11, count: 64)),
      #"{"signature":"EREREREREREREREREREREREREREREREREREREREREREREREREREREREREREREREREREREREREREREREREREREQ==","type":"proof"}"#
    ),
    (
      .command(id: 1, .pause(item: "harbour/s1e1", at: 754.25)),
      #"{"command":{"at":754.25,"item":"harbour/s1e1","type":"pause"},"id":1,"type":"command"}"#
    ),
    (
      .ping(id: 7, t0: LocalInstant(nanoseconds: 123_456_789)),
      #"{"id":7,"t0":123456789,"type":"ping"}"#
    ),
    (
      .send(seq: 3, to: .all, kind: "chat", body: "hello"),
      #"{"body":"hello","kind":"chat","seq":3,"to":{"type":"all"},"type":"send"}"#
    ),
    (
      .send(seq: 4, to: .only(["p2", "p5"]), kind: "chat", body: "psst"),
      #"{"body":"psst","kind":"chat","seq":4,"to":{"participants":["p2","p5"],"type":"only"},"type":"send"}"#
    ),
    // Version 17: part of the room's conversation, kept for newcomers.
    (
      .send(seq: 5, to: .all, kind: "chat", body: "popcorn ready", keep: true),
      #"{"body":"popcorn ready","keep":true,"kind":"chat","seq":5,"to":{"type":"all"},"type":"send"}"#
    ),
    (
      .send(seq: 6, to: .all, kind: "reaction", body: Fixture.reactionBody, keep: true),
      #"{"body":\#(Fixture.reactionBodyJSON),"keep":true,"kind":"reaction","seq":6,"to":{"type":"all"},"type":"send"}"#
    ),
    (.expire(id: 12), #"{"id":12,"type":"expire"}"#),
    (.resync, #"{"type":"resync"}"#),
    (.bye, #"{"type":"bye"}"#),
    (
      .carry(CarryOffer(port: 7701, fingerprint: "SHA256:abc")),
      #"{"fingerprint":"SHA256:abc","port":7701,"type":"carry"}"#
    ),
    (.locate(room: "lobby"), #"{"room":"lobby","type":"locate"}"#),
    (.tunnelOpen(ref: 2, lender: "p1"), #"{"lender":"p1","ref":2,"type":"tunnelOpen"}"#),
    (
      .tunnel(secret: "0123456789abcdef0123456789abcdef"),
      #"{"secret":"0123456789abcdef0123456789abcdef","type":"tunnel"}"#
    ),
  ]

  static let serverMessages: [(ServerMessage, String)] = [
    (.welcome(Fixture.welcome), #"{"type":"welcome","welcome":\#(Fixture.welcomeJSON)}"#),
    (
      .challenge(
        RoomChallenge(
          derivation: KeyDerivation(salt: Array(0..<16), cost: 17),
          nonce: Array("0123456789abcdef0123456789abcdef".utf8))),
      #"{"challenge":{"derivation":{"cost":17,"salt":"AAECAwQFBgcICQoLDA0ODw=="},"nonce":"MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="},"type":"challenge"}"#
    ),
    (
      .update(state: Fixture.emptyState, events: [Fixture.played]),
      #"{"events":[\#(Fixture.playedJSON)],"state":\#(Fixture.emptyStateJSON),"type":"update"}"#
    ),
    (.step(Fixture.pauseStep), #"{"step":\#(Fixture.pauseStepJSON),"type":"step"}"#),
    (.step(Fixture.tickStep), #"{"step":\#(Fixture.tickStepJSON),"type":"step"}"#),
    (.accepted(id: 3, sequence: 8), #"{"id":3,"sequence":8,"type":"accepted"}"#),
    (
      .rejected(id: 4, reason: .rateOutOfRange(rate: 9, allowed: 0.25...4)),
      #"{"id":4,"reason":{"allowed":{"max":4,"min":0.25},"rate":9,"type":"rateOutOfRange"},"type":"rejected"}"#
    ),
    (
      .pong(
        id: 7, t0: LocalInstant(nanoseconds: 123_456_789),
        t1: GroupInstant(nanoseconds: 3_600_000_123_456),
        t2: GroupInstant(nanoseconds: 3_600_000_125_000)),
      #"{"id":7,"t0":123456789,"t1":3600000123456,"t2":3600000125000,"type":"pong"}"#
    ),
    (
      .message(from: "p1", fromName: "ann", seq: 3, kind: "chat", body: "hello"),
      #"{"body":"hello","from":"p1","fromName":"ann","kind":"chat","seq":3,"type":"message"}"#
    ),
    (
      .message(from: "p1", fromName: "ann", seq: 4, kind: "chat", body: "psst", to: ["p2"]),
      #"{"body":"psst","from":"p1","fromName":"ann","kind":"chat","seq":4,"to":["p2"],"type":"message"}"#
    ),
    // Version 17: from the room's backlog, said before the receiver entered.
    (
      .message(
        from: "p1", fromName: "ann", seq: 5, kind: "chat", body: "popcorn ready", earlier: true),
      #"{"body":"popcorn ready","earlier":true,"from":"p1","fromName":"ann","kind":"chat","seq":5,"type":"message"}"#
    ),
    (
      .error(code: .roomFull, message: "room lobby is full (64 participants)", fatal: true),
      #"{"code":"roomFull","fatal":true,"message":"room lobby is full (64 participants)","type":"error"}"#
    ),
    (
      .redirect(
        room: "lobby",
        relay: RelayEndpoint(address: "relay2.example:7700", fingerprint: "SHA256:abc")),
      #"{"relay":{"address":"relay2.example:7700","fingerprint":"SHA256:abc"},"room":"lobby","type":"redirect"}"#
    ),
    (
      .succession([
        Successor(
          participant: "p2", name: "bob",
          relay: RelayEndpoint(address: "192.168.1.20:7701", fingerprint: "SHA256:abc")),
        Successor(
          participant: "p3", name: "carl",
          relay: RelayEndpoint(address: "203.0.113.7:7701", fingerprint: nil), reachable: false),
      ]),
      #"{"successors":[{"name":"bob","participant":"p2","relay":{"address":"192.168.1.20:7701","fingerprint":"SHA256:abc"}},{"name":"carl","participant":"p3","reachable":false,"relay":{"address":"203.0.113.7:7701"}}],"type":"succession"}"#
    ),
    (
      .replica(
        RoomChange(
          name: "lobby", state: Fixture.emptyState, nextNumber: 4, members: [], departed: ["p3"],
          restart: true, term: 2)),
      #"{"change":{"departed":["p3"],"members":[],"name":"lobby","nextNumber":4,"restart":true,"state":\#(Fixture.emptyStateJSON),"term":2},"type":"replica"}"#
    ),
    // Version 17: the room's backlog, whole, when it changed.
    (
      .replica(
        RoomChange(
          name: "lobby", state: nil, nextNumber: 4, members: [], departed: [], term: 2,
          backlog: [
            StoredMessage(
              index: 1,
              message: .message(
                from: "p1", fromName: "ann", seq: 5, kind: "chat", body: "popcorn ready"),
              bytes: 96)
          ])),
      #"{"change":{"backlog":[{"bytes":96,"index":1,"message":{"body":"popcorn ready","from":"p1","fromName":"ann","kind":"chat","seq":5,"type":"message"}}],"departed":[],"members":[],"name":"lobby","nextNumber":4,"term":2},"type":"replica"}"#
    ),
    (.handover(room: "lobby"), #"{"room":"lobby","type":"handover"}"#),
    (
      .located(room: "lobby", here: true, term: 3),
      #"{"here":true,"room":"lobby","term":3,"type":"located"}"#
    ),
    (.located(room: "attic", here: false), #"{"here":false,"room":"attic","type":"located"}"#),
    (
      .tunnelTicket(ref: 2, secret: "0123456789abcdef0123456789abcdef"),
      #"{"ref":2,"secret":"0123456789abcdef0123456789abcdef","type":"tunnelTicket"}"#
    ),
    (
      .tunnelRefused(ref: 3, reason: "this relay does not carry lent copies"),
      #"{"reason":"this relay does not carry lent copies","ref":3,"type":"tunnelRefused"}"#
    ),
    (
      .tunnelCall(secret: "0123456789abcdef0123456789abcdef", borrower: "p2"),
      #"{"borrower":"p2","secret":"0123456789abcdef0123456789abcdef","type":"tunnelCall"}"#
    ),
    (.tunnelReady, #"{"type":"tunnelReady"}"#),
  ]

  static let readiness: [(Readiness, String)] = [
    (.ready, #""ready""#), (.loading, #""loading""#), (.stalled, #""stalled""#),
  ]

  static let exitReasons: [(ExitReason, String)] = [
    (.quit, #""quit""#), (.disconnected, #""disconnected""#), (.timedOut, #""timedOut""#),
    (.removed, #""removed""#),
  ]

  static let playbackStatuses: [(PlaybackStatus, String)] = [
    (.playing, #""playing""#), (.paused, #""paused""#), (.waiting, #""waiting""#),
    (.finished, #""finished""#),
  ]

  static let errorCodes: [(ErrorCode, String)] = [
    (.malformedFrame, #""malformedFrame""#), (.frameTooLarge, #""frameTooLarge""#),
    (.unsupportedVersion, #""unsupportedVersion""#), (.helloRequired, #""helloRequired""#),
    (.alreadyGreeted, #""alreadyGreeted""#), (.roomFull, #""roomFull""#),
    (.invalidHello, #""invalidHello""#), (.rateLimited, #""rateLimited""#),
    (.messageTooLarge, #""messageTooLarge""#), (.unknownRecipient, #""unknownRecipient""#),
    (.messagesLost, #""messagesLost""#),
    (.tooManyConnections, #""tooManyConnections""#),
    (.tooManyRooms, #""tooManyRooms""#),
    (.heartbeatTimeout, #""heartbeatTimeout""#), (.serverShuttingDown, #""serverShuttingDown""#),
    (.roomLocked, #""roomLocked""#), (.removedFromRoom, #""removedFromRoom""#),
    (.wrongPassword, #""wrongPassword""#), (.roomNotProtected, #""roomNotProtected""#),
    (.tlsRequired, #""tlsRequired""#), (.storeUnavailable, #""storeUnavailable""#),
    (.tunnelRefused, #""tunnelRefused""#),
    (.cutOff, #""cutOff""#),
    (.roomClosed, #""roomClosed""#),
  ]

  /// Every struct that crosses the wire, with every optional field present, as
  /// (name, value, JSON).
  static let structs: [(String, any Codable & Sendable, String)] = [
    ("ItemInfo", Fixture.item1, Fixture.item1JSON),
    ("SeriesInfo", Fixture.series, Fixture.seriesJSON),
    ("Timeline", Fixture.ledInTimeline, Fixture.ledInTimelineJSON),
    ("GroupWait", Fixture.wait, Fixture.waitJSON),
    ("Participant", Fixture.ann, Fixture.annJSON),
    ("ChangeEvent", Fixture.played, Fixture.playedJSON),
    ("WatchSession", Fixture.session, Fixture.sessionJSON),
    ("GroupState", Fixture.queuedState, Fixture.queuedStateJSON),
    ("QueueEntry", Fixture.queueEntry, Fixture.queueEntryJSON),
    ("EngineConfiguration", Fixture.configuration, Fixture.configurationJSON),
    ("SequencedStep", Fixture.pauseStep, Fixture.pauseStepJSON),
    (
      "ResumeToken",
      ResumeToken(participant: "p1", proof: Array(repeating: 1, count: 64), messagesReceived: 12),
      #"{"messagesReceived":12,"participant":"p1","proof":"AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQ=="}"#
    ),
    ("Welcome", Fixture.welcome, Fixture.welcomeJSON),
  ]

  /// Every pinned JSON text above, for checks that apply to all of them.
  static var allJSON: [String] {
    commands.map(\.1) + changeKinds.map(\.1) + rejections.map(\.1) + waitCauses.map(\.1)
      + stepInputs.map(\.1) + recipients.map(\.1) + clientMessages.map(\.1)
      + serverMessages.map(\.1) + structs.map(\.2) + [
        Fixture.bobJSON, Fixture.waitStartedJSON, Fixture.emptyStateJSON,
        Fixture.strictConfigurationJSON, Fixture.tickStepJSON,
      ]
  }
}
