import Testing

@testable import PlaybackCoordination

/// A room on virtual time: one engine (the relay), and per participant a coordinator and a
/// simulated player with its own drift and seek latency, a clock offset to the group and an
/// imperfect estimate of it; states reach each participant after a seeded delay.
struct CoordinatedRoom {
  struct Member {
    var id: ParticipantID
    var coordinator: PlaybackCoordinator
    var player: SyncSimPlayer
    /// `group − local`, seconds, and this participant's estimate of it.
    var trueOffset: Double
    var clock: ClockOffsetEstimate
    var delay: Double
    var ready = false
  }

  var engine = GroupEngine()
  var members: [Member] = []
  var rng: SeededGenerator
  /// Group time, seconds.
  var now = 0.0
  /// States on their way: (arrival, member index, state).
  var inFlight: [(at: Double, member: Int, state: GroupState)] = []
  var maximumLatency: Double

  init(seed: UInt64, count: Int, drift: Double, maximumLatency: Double, clockError: Double) {
    rng = SeededGenerator(seed: seed)
    self.maximumLatency = maximumLatency
    for i in 0..<count {
      let id = ParticipantID("p\(i)")
      let trueOffset = rng.uniform(-1000...1000)
      let estimated = trueOffset + rng.uniform(-clockError...clockError)
      members.append(
        Member(
          id: id, coordinator: PlaybackCoordinator(participant: id),
          player: SyncSimPlayer(
            ppm: rng.uniform(-drift...drift), startupLatency: 0.1, loadLatency: 0.3),
          trueOffset: trueOffset,
          clock: ClockOffsetEstimate(offset: estimated, roundTrip: 0.001, uncertainty: clockError),
          delay: rng.uniform(0.0002...0.002)))
      apply(.enter(name: id.rawValue), from: i)
    }
    apply(.start(series: harbour, item: s1e2), from: 0)
    for i in 1..<count { apply(.join, from: i) }
  }

  func local(_ member: Member, at group: Double) -> LocalInstant {
    LocalInstant(seconds: group - member.trueOffset)
  }

  /// What each player shows now.
  mutating func positions() -> [Double] {
    members.indices.map { i in
      members[i].player.observe(at: local(members[i], at: now)).position
    }
  }

  /// Applies a command at the relay now and sends the new state on its way to everyone.
  mutating func apply(_ command: GroupCommand, from index: Int) {
    let result = engine.apply(command, from: members[index].id, at: GroupInstant(seconds: now))
    if case .failure(let rejection) = result {
      Issue.record("\(command) from p\(index) rejected: \(rejection)")
      return
    }
    broadcast()
  }

  mutating func broadcast() {
    for i in members.indices {
      inFlight.append((now + members[i].delay, i, engine.state))
    }
  }

  /// Moves virtual time on by `step`, delivering states, correcting players every 50 ms,
  /// reporting latencies every 2 s, as the participant runtime does.
  mutating func advance(by step: Double) {
    now += step
    let due = inFlight.filter { $0.at <= now + 1e-12 }
    inFlight.removeAll { $0.at <= now + 1e-12 }
    for delivery in due {
      var m = members[delivery.member]
      let at = local(m, at: now)
      for command in m.coordinator.adopt(delivery.state, at: at, clock: m.clock) {
        m.player.startupLatency = rng.uniform(0...maximumLatency)
        m.player.perform(command, at: at)
      }
      members[delivery.member] = m
    }
    if !engine.tick(at: GroupInstant(seconds: now)).isEmpty { broadcast() }
    let tick = Int((now * 1000).rounded())
    if tick % 50 == 0 {
      for i in members.indices {
        var m = members[i]
        let at = local(m, at: now)
        let seen = m.player.observe(at: at)
        for command in m.coordinator.correct(seen, at: at, clock: m.clock) {
          m.player.startupLatency = rng.uniform(0...maximumLatency)
          m.player.perform(command, at: at)
        }
        let becameReady = !m.ready && seen.item == s1e2 && !seen.isBusy
        if becameReady { m.ready = true }
        members[i] = m
        if becameReady { apply(.setReadiness(.ready), from: i) }
      }
    }
    if tick % 2000 == 0 {
      for i in members.indices {
        let latency = members[i].coordinator.leadLatency ?? 0.3
        apply(.report(roundTrip: 0.004, startupLatency: latency, playerOffset: nil), from: i)
      }
    }
  }
}

@Suite("Coordinated changes keep every player together")
struct CoordinatedChangeTests {
  /// Five players (±200 ppm, 0–300 ms seek latency drawn at every command, clocks known to
  /// ±0.1 ms) watch while someone pauses, plays, seeks, changes the rate, seeks and changes
  /// it back every 3 s. Sampled every 10 ms, no two players are ever more than a
  /// millisecond apart — no old spot shown after anyone shows the new one — except in the
  /// instants a pause takes to reach them (a pause cannot be scheduled ahead: it snaps to
  /// what its originator saw).
  @Test(
    "within a millisecond through pauses, plays, seeks and rate changes",
    arguments: [UInt64(1), 2, 3, 4])
  func together(seed: UInt64) {
    var room = CoordinatedRoom(
      seed: seed, count: 5, drift: 200, maximumLatency: 0.3, clockError: 0.0001)
    var rng = SeededGenerator(seed: seed &+ 100)
    // Everyone loads, reports, and the group starts.
    while room.now < 6 { room.advance(by: 0.01) }
    #expect(room.engine.state.session?.status == .playing)
    var worst = 0.0
    var worstPause = 0.0
    var lastPause = -10.0
    var step = 0
    while room.now < 120 {
      room.advance(by: 0.01)
      let tick = Int((room.now * 1000).rounded())
      if tick % 3000 == 0 {
        let who = Int.random(in: 0..<room.members.count, using: &rng)
        switch step % 6 {
        case 0:
          let seen = room.positions()[who]
          room.apply(.pause(item: s1e2, at: seen), from: who)
          lastPause = room.now
        case 1: room.apply(.play(item: s1e2, rate: nil), from: who)
        case 2, 4:
          room.apply(.seek(item: s1e2, to: rng.uniform(60...800)), from: who)
        case 3: room.apply(.setRate(item: s1e2, rate: [0.75, 1.25, 1.5][step % 3]), from: who)
        default: room.apply(.setRate(item: s1e2, rate: 1), from: who)
        }
        step += 1
      }
      let positions = room.positions()
      let spread = positions.max()! - positions.min()!
      if room.now - lastPause < 0.01 {
        worstPause = max(worstPause, spread)
      } else {
        worst = max(worst, spread)
      }
    }
    #expect(worst <= 0.001, "spread \(worst * 1000) ms")
    // While a pause travels (≤ 2 ms here), those that have it stand still and the others
    // play on for at most that long.
    #expect(
      worstPause <= 0.001 + 1.5 * 0.002, "spread while a pause travels \(worstPause * 1000) ms")
    #expect(step == 38)
  }
}
