import Participation
import PlaybackCoordination
import Testing
import WireProtocol

let series = SeriesInfo(
  id: "harbour", title: "Harbour",
  items: [
    ItemInfo(id: "harbour/s1e1", title: "Arrival", duration: 300),
    ItemInfo(id: "harbour/s1e2", title: "Fog", duration: 240),
  ])

extension SimulatedNetwork {
  /// Everyone enters, the first starts the session and the others join; returns when all
  /// are joined and ready.
  func watchTogether(_ names: [String]) -> [Int] {
    let people = names.map { join($0) }
    run(for: 1)
    request(.command(.start(series: series, item: "harbour/s1e1")), from: people[0])
    run(for: 0.5)
    for p in people.dropFirst() { request(.command(.join), from: p) }
    run(for: 1)
    return people
  }

  func answers(_ index: Int) -> [UInt64: [Result<Void, ClientError>]] { members[index].answers }
}

@Suite("ParticipantCore against the relay runtime, on virtual time")
struct ParticipantCoreTests {
  @Test("a pause by one of five reaches every replica with its originator and item time")
  func pauseReachesEveryone() throws {
    let net = SimulatedNetwork()
    let people = net.watchTogether(["ann", "bob", "cat", "dan", "eve"])
    for p in people { #expect(net.members[p].started.map { (try? $0.get()) != nil } == true) }
    #expect(net.state(0).session?.status == .playing)
    let ticket = net.request(.command(.pause(item: "harbour/s1e1", at: 1.5)), from: people[1])
    net.run(for: 0.2)
    #expect(net.answers(people[1])[ticket]?.count == 1)
    let relay = try #require(net.runtime.state(ofRoom: "lobby"))
    for p in people {
      #expect(net.state(p) == relay, "every replica holds the relay's state")
      #expect(net.state(p).session?.timeline.itemTime == 1.5)
      #expect(net.state(p).lastChange?.originatorName == "bob")
    }
  }

  @Test("requests sent while the relay drops everyone are answered exactly once and apply once")
  func dropsLoseNothing() throws {
    let net = SimulatedNetwork()
    let people = net.watchTogether(["ann", "bob"])
    var tickets: [UInt64] = []
    for i in 0..<30 {
      tickets.append(
        net.request(.command(.seek(item: "harbour/s1e1", to: Double(i))), from: people[0]))
      if i % 10 == 5 {
        net.run(for: 0.007)  // the requests reached the relay; their answers are on the way
        net.cut(people[0])
      }
    }
    net.run(for: 5)
    for ticket in tickets {
      let answers = net.answers(people[0])[ticket] ?? []
      #expect(answers.count == 1, "ticket \(ticket) answered \(answers.count) times")
      #expect((try? answers.first?.get()) != nil)
    }
    #expect(net.state(1).session?.timeline.itemTime == 29)
    let seeks = net.members[people[1]].events.flatMap { event -> [Double] in
      guard case .state(_, let changes) = event else { return [] }
      return changes.compactMap { if case .seeked(let to) = $0.kind { to } else { nil } }
    }
    // bob stayed connected: he saw every seek once, in order.
    #expect(seeks == (0..<30).map(Double.init))
    #expect(net.members[people[0]].core.unansweredRequests == 0)
  }

  @Test("a request left unsent through a long outage is settled, not applied: the user is told")
  func staleRequestsExpire() throws {
    let net = SimulatedNetwork(relay: .init(reconnectGrace: 60))
    let people = net.watchTogether(["ann", "bob"])
    net.outage(for: 15) {
      net.request(.playback(.pause), from: people[1])
    }
    net.run(for: 10)
    #expect(net.state(0).session?.status == .playing, "a pause from 15 s ago is not applied")
    let errors = net.errors(of: people[1])
    #expect(errors.contains { $0.hasPrefix("not sent: pause at") }, "\(errors)")
    #expect(net.members[people[1]].core.unansweredRequests == 0)
  }

  @Test(
    "chat still waiting when the participant gives up on the relay is reported not sent, with its words"
  )
  func unsentOnGiveUp() {
    let net = SimulatedNetwork()
    let people = net.watchTogether(["ann", "bob"])
    net.outage(for: 70) {
      net.request(.message(kind: "chat", body: "typed while down", to: .all), from: people[1])
    }
    let errors = net.errors(of: people[1])
    #expect(
      errors.contains(
        "not sent: your chat message “typed while down” — gave up reconnecting to the relay"),
      "\(errors)")
  }

  @Test(
    "space pressed quickly toggles from what was last asked for: twice is back where it was, three times paused"
  )
  func toggleBursts() {
    let net = SimulatedNetwork(latency: 0.05)
    let people = net.watchTogether(["ann", "bob"])
    #expect(net.state(0).session?.status == .playing)
    // Three presses before the relay has answered the first.
    for _ in 0..<3 { net.request(.playback(.togglePlayback), from: people[1]) }
    net.run(for: 1)
    #expect(net.state(0).session?.status == .paused)
    // Two more: paused → playing → paused.
    net.request(.playback(.togglePlayback), from: people[1])
    net.request(.playback(.togglePlayback), from: people[1])
    net.run(for: 1)
    #expect(net.state(0).session?.status == .paused)
    // And one: playing.
    net.request(.playback(.togglePlayback), from: people[1])
    net.run(for: 1)
    #expect(net.state(0).session?.status == .playing)
    #expect(net.members[people[1]].core.unansweredRequests == 0)
  }

  @Test(
    "playback asked for through an outage is settled as one sequence: a seek too old to send takes the pause after it along, and the caller that stopped waiting was told it was queued, not failed"
  )
  func staleSequenceExpiresTogether() throws {
    let net = SimulatedNetwork(relay: .init(reconnectGrace: 60))
    let people = net.watchTogether(["ann", "bob"])
    var pause: UInt64 = 0
    // 10.5 s in all: 5 s before the pause, 5.5 after it.
    net.outage(for: 5.5) {
      net.request(.playback(.seekBy(60)), from: people[1])
      // Asked 5 s later: young enough to be sent on its own when the relay is back.
      net.run(for: 5)
      pause = net.request(.playback(.pause), from: people[1])
    }
    net.run(for: 10)
    #expect(
      net.state(0).session?.status == .playing, "the pause after the dropped seek is not applied")
    let errors = net.errors(of: people[1])
    #expect(errors.contains { $0.hasPrefix("not sent: seek to") }, "\(errors)")
    #expect(errors.contains { $0.hasPrefix("not sent: pause at") }, "\(errors)")
    let told = try #require(net.answers(people[1])[pause]?.first)
    guard case .failure(let error) = told else {
      Issue.record("the pause's caller was answered \(told)")
      return
    }
    #expect(
      error.description.contains("the connection is down"), "the caller reads: \(error.description)"
    )
    #expect(net.members[people[1]].core.unansweredRequests == 0)
  }

  @Test(
    "a relay that closes for good (a host's, whose host left) stops its participants with the reason; one that only shuts down is reconnected to"
  )
  func relayClosedForGood() throws {
    let closing = SimulatedNetwork()
    let people = closing.watchTogether(["ann", "bob"])
    closing.runtime.stop(reason: "ann closed the room (it ran on their machine)", final: true)
    closing.run(for: 5)
    #expect(closing.members[people[1]].core.status == .disconnected)
    let errors = closing.errors(of: people[1])
    #expect(errors.contains("ann closed the room (it ran on their machine)"), "\(errors)")

    let restarting = SimulatedNetwork()
    let others = restarting.watchTogether(["ann", "bob"])
    restarting.runtime.stop()
    restarting.run(for: 1)
    #expect(restarting.members[others[1]].core.status == .reconnecting)
  }

  @Test("someone the owner removes is told once, by the room's change, and stops")
  func removedOnce() throws {
    let net = SimulatedNetwork()
    let people = net.watchTogether(["ann", "bob"])
    let bob = try #require(net.members[people[1]].core.participant)
    net.request(.command(.remove(bob)), from: people[0])
    net.run(for: 2)
    let told = net.errors(of: people[1])
    #expect(!told.contains { $0.contains("removed you") }, "\(told)")
    let changes = net.members[people[1]].events.flatMap { e -> [ChangeKind] in
      if case .state(_, let events) = e { events.map(\.kind) } else { [] }
    }
    #expect(changes.contains(.removed(participant: bob, name: "bob")))
    #expect(net.members[people[1]].core.status == .disconnected)
  }

  @Test(
    "after a relay restart the participants come back as members of the new relay, and know it restarted"
  )
  func relayRestart() throws {
    let net = SimulatedNetwork()
    let people = net.watchTogether(["ann", "bob"])
    net.restartRelay(epoch: "epoch-2")
    net.run(for: 5)
    for p in people {
      #expect(net.members[p].core.relayEpoch == "epoch-2")
      #expect(net.members[p].core.status == .connected)
    }
    #expect(net.runtime.state(ofRoom: "lobby")?.participants.count == 2)
    let ticket = net.request(
      .command(.start(series: series, item: "harbour/s1e2")), from: people[1])
    net.run(for: 0.5)
    #expect((try? net.answers(people[1])[ticket]?.first?.get()) != nil)
    #expect(net.state(0).session?.item.id == "harbour/s1e2")
  }

  @Test(
    "a watch session lost with a relay that restarted without it ends as 'the relay restarted', not as if someone left"
  )
  func sessionLostWithRelay() throws {
    let net = SimulatedNetwork()
    let people = net.watchTogether(["ann", "bob"])
    net.restartRelay(epoch: "epoch-2")
    net.run(for: 5)
    for p in people {
      let phases = net.members[p].events.compactMap { e -> SessionPhase? in
        if case .session(let phase) = e { phase } else { nil }
      }
      #expect(phases.last == .invalidated(.relayRestarted), "\(phases)")
      #expect(!phases.contains(.invalidated(.left)))
    }
    #expect(
      InvalidationReason.relayRestarted.description
        == "the relay restarted and lost this watch session")
    // Someone leaving is still told as leaving.
    net.request(.command(.start(series: series, item: "harbour/s1e1")), from: people[0])
    net.run(for: 0.5)
    net.request(.command(.join), from: people[1])
    net.run(for: 0.5)
    let before = net.members[people[1]].events.count
    net.request(.command(.leave), from: people[1])
    net.run(for: 0.5)
    #expect(net.members[people[1]].events.dropFirst(before).contains(.session(.invalidated(.left))))
  }

  @Test(
    "after a restart that kept the room everyone is back as the same member where the group was; a message to someone away arrives once"
  )
  func relayRestartKeepingRooms() throws {
    let net = SimulatedNetwork()
    let people = net.watchTogether(["ann", "bob"])
    net.request(.command(.pause(item: "harbour/s1e1", at: 42.5)), from: people[0])
    net.run(for: 0.5)
    let ids = people.map { net.members[$0].core.participant }
    let sequence = try #require(net.runtime.state(ofRoom: "lobby")).sequence
    // bob's connection resets; ann writes to him; the relay dies before he is back.
    net.cut(people[1])
    let ticket = net.request(
      .message(kind: "chat", body: "are you there?", to: .all), from: people[0])
    net.restartRelay(epoch: "epoch-2", keepingRooms: true)
    net.run(for: 5)
    for (p, id) in zip(people, ids) {
      #expect(net.members[p].core.relayEpoch == "epoch-2")
      #expect(net.members[p].core.status == .connected)
      #expect(net.members[p].core.participant == id, "the same member, with the same id")
      #expect(
        net.members[p].events.contains(
          .welcomed(participant: id!, resumed: true, relayEpoch: "epoch-2")))
      let session = try #require(net.state(p).session)
      #expect(session.status == .paused && session.timeline.itemTime == 42.5)
      #expect(session.item.id == "harbour/s1e1")
    }
    let relay = try #require(net.runtime.state(ofRoom: "lobby"))
    #expect(relay.sequence > sequence)
    #expect(relay.participants.map(\.id) == ids.compactMap { $0 })
    #expect(relay.participants.allSatisfy { $0.isConnected })
    let got = net.members[people[1]].events.filter {
      if case .message(_, _, _, "are you there?", _, _) = $0 { true } else { false }
    }
    #expect(got.count == 1)
    #expect(net.answers(people[0])[ticket]?.count == 1)
  }

  @Test(
    "random commands from random participants through random drops: every request answered once, every replica equal to the relay",
    arguments: [1, 2, 3, 4, 5] as [UInt64])
  func randomRuns(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let net = SimulatedNetwork(latency: 0.002 + Double(seed) * 0.003)
    let people = net.watchTogether(["ann", "bob", "cat"])
    var tickets: [(Int, UInt64)] = []
    var sent: [String] = []
    for n in 0..<200 {
      let who = people[Int(random.next() % 3)]
      let request: ParticipantRequest
      switch random.next() % 8 {
      case 0: request = .playback(.pause)
      case 1: request = .playback(.play(rate: nil))
      case 2: request = .playback(.seekBy(Double(random.next() % 40) - 20))
      case 3: request = .playback(.changeRate(by: random.next() % 2 == 0 ? 0.25 : -0.25))
      case 4: request = .playback(.seek(to: Double(random.next() % 290)))
      case 5: request = .command(.setAutoAdvance(random.next() % 2 == 0))
      case 6:
        request = .message(kind: "chat", body: "m\(n)", to: .all)
        sent.append("\(who):m\(n)")
      default: request = .command(.beginSuspension("custom"))
      }
      tickets.append((who, net.request(request, from: who)))
      switch random.next() % 25 {
      case 0: net.dropAll()
      case 1: net.cut(people[Int(random.next() % 3)])
      default: break
      }
      net.run(for: Double(random.next() % 30) / 1000)
    }
    net.run(for: 8)
    for (who, ticket) in tickets {
      #expect(net.answers(who)[ticket]?.count == 1, "\(who) ticket \(ticket)")
    }
    let relay = try #require(net.runtime.state(ofRoom: "lobby"))
    for p in people {
      #expect(net.state(p) == relay)
      #expect(net.members[p].core.unansweredRequests == 0)
      // Every message from the others arrives exactly once, in the order sent.
      let received = net.members[p].events.compactMap { e -> String? in
        guard case .message(let from, _, "chat", let body, _, _) = e else { return nil }
        return "\(people.first { net.members[$0].core.participant == from }!):\(body)"
      }
      for sender in people where sender != p {
        let mine = { (line: String) in line.hasPrefix("\(sender):") }
        #expect(received.filter(mine) == sent.filter(mine), "\(sender) → \(p)")
      }
    }
  }
}

extension SimulatedNetwork {
  /// An outage: everyone is cut off and the relay refuses connections for `seconds`; `meanwhile`
  /// runs right after the cut.
  func outage(for seconds: Double, meanwhile: () -> Void) {
    refusing = true
    dropAll()
    meanwhile()
    run(for: seconds)
    refusing = false
  }
}

@Suite("ParticipantCore's clock sync adapts to the link")
struct ClockSyncAdaptationTests {
  /// Pings sent by `member` over the next `seconds`.
  static func pings(_ net: SimulatedNetwork, _ member: Int, over seconds: Double) -> Int {
    let before = net.members[member].pings
    net.run(for: seconds)
    return net.members[member].pings - before
  }

  @Test("a quiet link is pinged once a second; a jittery one four times, and its clock is right")
  func jitteryLinkPingsFaster() throws {
    let quiet = SimulatedNetwork(latency: 0.005)
    let q = quiet.join("ann")
    quiet.run(for: 5)
    #expect((9...11).contains(Self.pings(quiet, q, over: 10)))

    let jittery = SimulatedNetwork(latency: 0.03, jitter: 0.02)
    let j = jittery.join("ann")
    jittery.run(for: 5)
    #expect((36...44).contains(Self.pings(jittery, j, over: 10)))
    jittery.run(for: 60)
    // The relay's clock is the network's clock; the participant's is `localOffset` behind.
    let estimate = try #require(jittery.members[j].core.estimate)
    let error = abs(estimate.offset(at: jittery.now) - Double(jittery.localOffset) / 1e9)
    #expect(error < 0.002, "clock error \(error * 1000) ms")
  }
}

extension SimulatedNetwork {
  /// The errors member `index` was told, in order.
  func errors(of index: Int) -> [String] {
    members[index].events.compactMap { e -> String? in
      if case .notice(let notice) = e { notice.description } else { nil }
    }
  }
}
