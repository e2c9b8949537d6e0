import Foundation
import PlaybackCoordination
import Testing
import WireProtocol

/// Short episodes so that random runs reach their ends often.
let shorts = SeriesInfo(
  id: "shorts", title: "Shorts",
  items: [
    ItemInfo(id: "shorts/1", title: "One", duration: 40),
    ItemInfo(id: "shorts/2", title: "Two", duration: 25),
    ItemInfo(id: "shorts/3", title: "Three", duration: 30),
  ])

let propertyConfiguration = EngineConfiguration(
  waitingReasons: [.stallRecovery, .userActionRequired], answerTimeout: 6, firstLoadTimeout: 12,
  rebufferTimeout: 4,
  suspensionWaitTimeout: 5, maximumStartDelay: 1.5)

/// One step of a recorded run: a command (accepted or not) or a tick.
enum RecordedStep {
  case command(GroupCommand, ParticipantID, GroupInstant)
  case tick(GroupInstant)
}

/// Random commands from five participants, biased towards ones that make sense now.
struct CommandGenerator {
  var rng: SeededGenerator
  let people: [ParticipantID] = ["p0", "p1", "p2", "p3", "p4"]
  let reasons: [SuspensionReason] = [
    .interrupted, .stallRecovery, .userActionRequired, .changingTime, "custom",
  ]

  /// Mostly one of `candidates`, sometimes anyone (to exercise rejections).
  mutating func someone(among candidates: [Participant]) -> ParticipantID {
    candidates.isEmpty || rng.chance(0.15) ? rng.pick(people) : rng.pick(candidates).id
  }

  mutating func next(for state: GroupState, at now: GroupInstant) -> (GroupCommand, ParticipantID) {
    let session = state.session
    let duration = session?.item.duration ?? 40
    let position = session?.position(at: now) ?? 0
    let item: ItemID? =
      rng.chance(0.85) ? session?.item.id : rng.chance(0.5) ? nil : rng.pick(shorts.items).id
    let present = state.participants
    let joined = state.joinedParticipants
    let movers = joined.filter { !$0.isSuspended }
    switch rng.int(106) {
    case 0..<4:
      let absent = people.filter { state.participant($0) == nil }
      let id = absent.isEmpty || rng.chance(0.1) ? rng.pick(people) : rng.pick(absent)
      return (.enter(name: rng.chance(0.9) ? id.rawValue : ""), id)
    case 4..<6:
      return (
        .exit(reason: rng.pick([.quit, .disconnected, .timedOut, .removed])),
        someone(among: present)
      )
    case 6..<9: return (.setConnected(rng.chance(0.5)), someone(among: present))
    case 9..<11:
      let series = rng.chance(0.95) ? shorts : SeriesInfo(id: "x", title: "X", items: [])
      return (.start(series: series, item: rng.pick(shorts.items).id), someone(among: present))
    case 11..<15: return (.join, someone(among: present.filter { !$0.isJoined }))
    case 15..<17:
      let invited = session?.invited ?? []
      let id =
        invited.isEmpty || rng.chance(0.1)
        ? someone(among: present) : rng.pick(invited)
      return (.decline, id)
    case 17..<19: return (.leave, someone(among: joined))
    case 19..<20: return (.end, someone(among: joined))
    case 20..<29:
      return (
        .play(item: item, rate: rng.pick([nil, nil, 0.5, 1, 1.5, 2, 5])), someone(among: movers)
      )
    case 29..<35:
      let at =
        rng.chance(0.9) ? max(0, position - rng.double(0...0.5)) : rng.double(-1...(duration + 1))
      return (.pause(item: item, at: at), someone(among: movers))
    case 35..<40:
      return (.seek(item: item, to: rng.double(-1...(duration + 1))), someone(among: movers))
    case 40..<44: return (.setRate(item: item, rate: rng.double(0...4.5)), someone(among: movers))
    case 44..<47:
      let command = GroupCommand.replace(
        series: shorts, item: rng.pick(shorts.items).id, confirmed: rng.chance(0.8))
      return (command, someone(among: movers))
    case 47..<53: return (.advance(endedItem: item ?? "shorts/1"), someone(among: movers))
    case 53..<60: return (.beginSuspension(rng.pick(reasons)), someone(among: joined))
    case 60..<68:
      let id = someone(among: joined.filter(\.isSuspended))
      let own = state.participant(id)?.suspensions ?? []
      let reason: SuspensionReason? =
        rng.chance(0.5) ? nil : own.isEmpty || rng.chance(0.2) ? rng.pick(reasons) : rng.pick(own)
      return (
        .endSuspension(reason, proposing: rng.chance(0.4) ? rng.double(0...duration) : nil), id
      )
    case 82..<86:
      let owner = state.control.owner
      let by = owner.map { rng.chance(0.85) ? $0 : rng.pick(people) } ?? rng.pick(people)
      switch rng.int(5) {
      case 0: return (.setLocked(rng.chance(0.5)), by)
      case 4: return (.setKept(rng.chance(0.6)), by)
      case 1: return (.setPlaybackControl(rng.chance(0.25) ? .owner : .everyone), by)
      case 2: return (.transferOwnership(to: someone(among: present)), by)
      default: return (.remove(someone(among: present)), by)
      }
    case 68..<82:
      return (
        .setReadiness(rng.pick([.ready, .ready, .loading, .stalled])), someone(among: joined)
      )
    case 86..<90: return (.setAutoAdvance(rng.chance(0.5)), someone(among: present))
    case 90..<95:
      // The queue: mostly entries that are there, sometimes ones already gone (another
      // person's edit came first).
      let entry =
        state.queue.isEmpty || rng.chance(0.1)
        ? UInt64(rng.int(8)) : rng.pick(state.queue).id
      let by = someone(among: present)
      switch rng.int(10) {
      case 0..<4: return (.queueAdd(series: shorts, item: rng.pick(shorts.items).id), by)
      case 4..<6: return (.queueRemove(entry: entry), by)
      case 6..<8: return (.queueMove(entry: entry, to: rng.int(5)), by)
      case 8: return (.playQueued(entry: entry), someone(among: movers))
      default: return (.queueClear, by)
      }
    case 95..<97:
      // Someone here, now and then someone gone or oneself (refused), or one's own copy.
      let lender: ParticipantID? = rng.chance(0.3) ? nil : rng.pick(people)
      return (.watchFrom(lender), someone(among: present))
    case 100..<106:
      // Ready checks: mostly answers, now and then a question, an end, or the room's rule.
      switch rng.int(10) {
      case 0..<2: return (.askReady, someone(among: movers))
      case 2..<7: return (.setReadyToWatch(rng.chance(0.7)), someone(among: present))
      case 7: return (.startAnyway, someone(among: joined))
      case 8: return (.cancelReadyCheck, someone(among: joined))
      default:
        let by =
          state.control.owner.map { rng.chance(0.85) ? $0 : rng.pick(people) } ?? rng.pick(people)
        return (.setStartWhenAllReady(rng.chance(0.5)), by)
      }
    default:
      let command = GroupCommand.report(
        roundTrip: rng.double(0...0.8), startupLatency: rng.double(0...0.5),
        playerOffset: rng.chance(0.5) ? rng.double(-0.2...0.2) : nil)
      return (command, someone(among: present))
    }
  }

  mutating func step() -> Int64 {
    let seconds = rng.chance(0.1) ? rng.double(5...20) : rng.chance(0.1) ? 0 : rng.double(0...3)
    return Int64(seconds * 1e9)
  }
}

/// Checks the rules every accepted change must keep.
struct ChangeChecker {
  let configuration: EngineConfiguration
  /// The item that last ended in the current session, until the group moved away from it.
  var ended: (session: UInt64, item: ItemID)?

  /// Discontinuities are allowed only at these: everything else keeps the position.
  static func movesPosition(_ kind: ChangeKind, byCommand: Bool) -> Bool {
    switch kind {
    case .seeked, .paused, .resumedProposing, .replaced, .autoAdvanced, .sessionStarted,
      .sessionEnded, .queuePlayed:
      true
    case .reachedEnd: byCommand  // an advance request stops a little before the end
    default: false
    }
  }

  mutating func check(
    before: GroupState, after: GroupState, events: [ChangeEvent], at now: GroupInstant,
    originator: ParticipantID?, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    // Sequencing.
    #expect(
      events.map(\.sequence)
        == Array((before.sequence + 1)..<(before.sequence + 1 + UInt64(events.count))),
      sourceLocation: sourceLocation)
    #expect(
      after.sequence == before.sequence + UInt64(events.count), sourceLocation: sourceLocation)
    if let last = events.last(where: { $0.kind != .reported }) {
      #expect(after.lastChange == last, sourceLocation: sourceLocation)
    }
    #expect(
      events.allSatisfy { $0.at == now && $0.originator == originator },
      sourceLocation: sourceLocation)
    if events.isEmpty {
      #expect(after == before, "a change without events", sourceLocation: sourceLocation)
    }

    // (b) Continuity: the position at the instant of the change is kept, except where a
    // change moves it on purpose.
    if let old = before.session, let new = after.session, old.id == new.id,
      old.item.id == new.item.id,
      !events.contains(where: { Self.movesPosition($0.kind, byCommand: originator != nil) })
    {
      let jump = abs(old.position(at: now) - new.position(at: now))
      #expect(
        jump <= 1e-6, "position jumped by \(jump) at \(events.kinds)",
        sourceLocation: sourceLocation)
    }

    // (d) One ending, one advance.
    for event in events {
      switch event.kind {
      case .autoAdvanced(let from, let to):
        let sessionID = before.session?.id ?? 0
        let twice = ended.map { $0.session == sessionID && $0.item == from } ?? false
        #expect(!twice, "\(from) ended twice", sourceLocation: sourceLocation)
        // The queue may hold the item that just ended: it then plays again from its start,
        // and its next ending is another one.
        ended = to == from ? nil : (sessionID, from)
      case .reachedEnd(let from):
        let sessionID = before.session?.id ?? 0
        let twice = ended.map { $0.session == sessionID && $0.item == from } ?? false
        #expect(!twice, "\(from) ended twice", sourceLocation: sourceLocation)
        ended = (sessionID, from)
      case .seeked, .paused, .resumedProposing, .replaced, .sessionStarted, .sessionEnded,
        .queuePlayed:
        ended = nil
      default: break
      }
    }
    checkInvariants(after, sourceLocation: sourceLocation)
  }

  func checkInvariants(_ state: GroupState, sourceLocation: SourceLocation) {
    let ids = state.participants.map(\.id)
    #expect(Set(ids).count == ids.count, sourceLocation: sourceLocation)
    // A copy is read only from someone else who is here.
    for p in state.participants {
      if let lender = p.lender {
        #expect(lender != p.id && ids.contains(lender), sourceLocation: sourceLocation)
      }
    }
    // The queue: entries named once, by numbers the room gave, within its bounds.
    let entries = state.queue.map(\.id)
    #expect(Set(entries).count == entries.count, sourceLocation: sourceLocation)
    #expect(
      entries.allSatisfy { $0 >= 1 && $0 <= state.queueCounter }, sourceLocation: sourceLocation)
    #expect(state.queue.count <= GroupState.maximumQueueEntries, sourceLocation: sourceLocation)
    // Someone present always owns a room that has anyone in it; an empty one is open again
    // (kept, if its owner asked: that outlasts them).
    if ids.isEmpty {
      #expect(
        state.control == RoomControl(kept: state.control.kept), sourceLocation: sourceLocation)
    } else {
      #expect(state.owner != nil, "nobody owns the room", sourceLocation: sourceLocation)
    }
    if let last = state.lastChange {
      // Reports after it may have taken later sequence numbers.
      #expect(last.sequence <= state.sequence, sourceLocation: sourceLocation)
      #expect(last.kind != .reported, sourceLocation: sourceLocation)
    }
    guard let session = state.session else {
      #expect(state.joinedParticipants.isEmpty, sourceLocation: sourceLocation)
      return
    }
    let joined = Set(state.joinedParticipants.map(\.id))
    let waited = session.waits.map(\.participant)
    #expect(Set(waited).count == waited.count, sourceLocation: sourceLocation)
    let invited = Set(session.invited)
    #expect(Set(waited).isSubset(of: joined.union(invited)), sourceLocation: sourceLocation)
    #expect(invited.isDisjoint(with: joined), sourceLocation: sourceLocation)
    // Everyone asked is waited for until they answer, and only for that.
    for wait in session.waits {
      #expect(
        (wait.cause == .answering) == invited.contains(wait.participant),
        sourceLocation: sourceLocation)
    }
    #expect(Set(waited).isSuperset(of: invited), sourceLocation: sourceLocation)
    #expect(Set(session.excused).isSubset(of: joined), sourceLocation: sourceLocation)
    #expect(Set(session.catchingUp).isSubset(of: joined), sourceLocation: sourceLocation)
    #expect(Set(waited).isDisjoint(with: session.excused), sourceLocation: sourceLocation)
    #expect(session.waits.allSatisfy { $0.deadline > $0.since }, sourceLocation: sourceLocation)
    let timeline = session.timeline
    // A ready check holds a paused group and is settled: someone asked is not yet ready.
    if let check = session.readyCheck {
      #expect(
        session.intendedRate == 0,
        "means to play during a check after \(String(describing: state.lastChange?.kind))",
        sourceLocation: sourceLocation)
      #expect(check.deadline > check.since, sourceLocation: sourceLocation)
      #expect(
        !state.notReadyToWatch.isEmpty, "everyone ready, still asking",
        sourceLocation: sourceLocation)
    }
    // A countdown is the start the timeline still holds for.
    if let countdown = session.countdown {
      #expect(
        countdown == timeline.groupTime && timeline.rate > 0, sourceLocation: sourceLocation)
    }
    #expect((0...session.item.duration).contains(timeline.itemTime), sourceLocation: sourceLocation)
    #expect(
      session.intendedRate == 0 || session.intendedRate == session.playbackRate,
      sourceLocation: sourceLocation)
    #expect(
      configuration.allowedRates.contains(session.playbackRate), sourceLocation: sourceLocation)
    if timeline.rate > 0 {
      #expect(session.waits.isEmpty && !session.reachedEnd, sourceLocation: sourceLocation)
      #expect(session.intendedRate == timeline.rate, sourceLocation: sourceLocation)
    }
    if session.intendedRate > 0 && session.waits.isEmpty {
      #expect(
        timeline.rate > 0, "means to play, waits for nobody, but stopped",
        sourceLocation: sourceLocation)
    }
    if session.reachedEnd {
      #expect(
        timeline.itemTime == session.item.duration && timeline.rate == 0,
        sourceLocation: sourceLocation)
    }
    // While the group means to play, it waits for everyone it should.
    if session.intendedRate > 0 {
      for participant in state.joinedParticipants where !session.excused.contains(participant.id) {
        let detached = participant.suspensions.contains {
          !configuration.waitingReasons.contains($0)
        }
        let suspendedWaiting = !participant.suspensions.isEmpty
        let loading =
          participant.readiness != .ready && !session.catchingUp.contains(participant.id)
        if !detached && (suspendedWaiting || loading) {
          #expect(
            waited.contains(participant.id), "\(participant.id) not waited for",
            sourceLocation: sourceLocation)
        }
      }
    }
  }
}

/// Runs a random scenario, checking every change; returns the recorded steps, the final
/// engine and all events.
func runScenario(seed: UInt64, steps: Int) -> ([RecordedStep], GroupEngine, [ChangeEvent]) {
  var generator = CommandGenerator(rng: SeededGenerator(seed: seed))
  var engine = GroupEngine(configuration: propertyConfiguration)
  var checker = ChangeChecker(configuration: propertyConfiguration)
  var recorded: [RecordedStep] = []
  var allEvents: [ChangeEvent] = []
  var now = GroupInstant(nanoseconds: 1_000_000_000)
  var lastTime = now
  for _ in 0..<steps {
    now = GroupInstant(nanoseconds: now.nanoseconds + generator.step())
    // (c) Tick at every deadline up to now; no wait outlives its deadline.
    var ticks = 0
    while let deadline = engine.nextDeadline(), deadline <= now {
      #expect(deadline >= lastTime, "a deadline in the past")
      let at = max(deadline, lastTime)
      let before = engine.state
      let events = engine.tick(at: at)
      #expect(!events.isEmpty, "nothing happened at the deadline \(at)")
      checker.check(before: before, after: engine.state, events: events, at: at, originator: nil)
      #expect(
        engine.state.session?.waits.allSatisfy { $0.deadline > at } ?? true,
        "a wait outlived its deadline")
      if let next = engine.nextDeadline() { #expect(next > at, "tick made no progress") }
      recorded.append(.tick(at))
      allEvents += events
      lastTime = at
      ticks += 1
      if ticks > 50 {
        Issue.record("ticks do not settle at \(at)")
        break
      }
    }
    // Ticking before the next deadline changes nothing.
    if generator.rng.chance(0.1) {
      let before = engine.state
      #expect(engine.tick(at: now).isEmpty)
      #expect(engine.state == before)
    }
    let (command, participant) = generator.next(for: engine.state, at: now)
    let before = engine.state
    recorded.append(.command(command, participant, now))
    switch engine.apply(command, from: participant, at: now) {
    case .failure(let rejection):
      #expect(engine.state == before, "rejected \(command) (\(rejection)) changed the state")
    case .success(let events):
      checker.check(
        before: before, after: engine.state, events: events, at: now, originator: participant)
      allEvents += events
    }
    lastTime = now
  }
  return (recorded, engine, allEvents)
}

/// Replays recorded steps on `engine`, returning the events.
func replay(_ steps: ArraySlice<RecordedStep>, on engine: inout GroupEngine) -> [ChangeEvent] {
  var events: [ChangeEvent] = []
  for step in steps {
    switch step {
    case .tick(let at): events += engine.tick(at: at)
    case .command(let command, let participant, let at):
      if case .success(let applied) = engine.apply(command, from: participant, at: at) {
        events += applied
      }
    }
  }
  return events
}

@Suite("Group engine: properties of random runs")
struct GroupEnginePropertyTests {
  @Test(
    "random runs keep the rules: sequencing, continuity, waits within deadlines, one advance per ending",
    arguments: 0..<24)
  func randomRuns(seed: UInt64) {
    _ = runScenario(seed: seed, steps: 500)
  }

  @Test("random runs exercise every kind of change")
  func coverage() {
    var counts: [String: Int] = [:]
    for seed in UInt64(0)..<10 {
      for event in runScenario(seed: seed, steps: 500).2 {
        let label = "\(event.kind)"
        counts[String(label.prefix { $0 != "(" }), default: 0] += 1
      }
    }
    let expected = [
      "entered", "exited", "connectionChanged", "sessionStarted", "joined", "declined", "left",
      "sessionEnded",
      "played", "paused", "seeked", "rateChanged", "replaced", "autoAdvanced", "reachedEnd",
      "suspended", "resumed", "resumedProposing", "readinessChanged", "waitStarted",
      "waitTimedOut", "waitEnded", "autoAdvanceChanged", "reported", "lockChanged",
      "playbackControlChanged", "ownerChanged", "removed", "queueAdded", "queueRemoved",
      "queueMoved", "queueCleared", "queuePlayed",
    ]
    for kind in expected {
      #expect(counts[kind, default: 0] >= 3, "\(kind) seen \(counts[kind, default: 0]) times")
    }
  }

  @Test(
    "replicas applying the same sequence end in identical state, also from a copy taken mid-way",
    arguments: 100..<112)
  func replicas(seed: UInt64) throws {
    let (steps, primary, primaryEvents) = runScenario(seed: seed, steps: 300)
    var fresh = GroupEngine(configuration: propertyConfiguration)
    let freshEvents = replay(steps[...], on: &fresh)
    #expect(fresh.state == primary.state)
    #expect(freshEvents == primaryEvents)

    // A late joiner's replica: the full state as sent over the wire, then the rest.
    let middle = steps.count / 2
    var early = GroupEngine(configuration: propertyConfiguration)
    _ = replay(steps[..<middle], on: &early)
    let wire = try JSONEncoder().encode(early.state)
    let decoded = try JSONDecoder().decode(GroupState.self, from: wire)
    #expect(decoded == early.state)
    var late = GroupEngine(configuration: propertyConfiguration, state: decoded)
    _ = replay(steps[middle...], on: &late)
    #expect(late.state == primary.state)
  }

  @Test(
    "one ending advances once, however many players report it and whenever ticks come",
    arguments: 200..<240)
  func oneEndingOneAdvance(seed: UInt64) {
    var rng = SeededGenerator(seed: seed)
    var engine = GroupEngine(configuration: propertyConfiguration)
    let people: [ParticipantID] = ["p0", "p1", "p2", "p3"]
    var t = GroupInstant(seconds: 1)
    for id in people { _ = engine.apply(.enter(name: id.rawValue), from: id, at: t) }
    _ = engine.apply(.start(series: shorts, item: "shorts/2"), from: "p0", at: t)
    for id in people.dropFirst() { _ = engine.apply(.join, from: id, at: t) }
    for id in people {
      _ = engine.apply(.setReadiness(.ready), from: id, at: t)
      if rng.chance(0.5) { _ = engine.apply(.setAutoAdvance(true), from: id, at: t) }
    }
    let advances = people.contains { engine.state.participant($0)?.autoAdvance == true }
    guard let end = engine.nextDeadline() else {
      Issue.record("not playing")
      return
    }
    // Every player reports the end at a slightly different time; ticks come when due.
    var reports = people.map { ($0, end.advanced(bySeconds: rng.double(-2.5...1))) }
    reports.sort { $0.1 < $1.1 }
    var endings: [ChangeKind] = []
    for (id, at) in reports {
      while let deadline = engine.nextDeadline(), deadline <= at, deadline <= end {
        t = deadline
        endings += engine.tick(at: deadline).kinds
      }
      t = max(t, at)
      if case .success(let events) = engine.apply(.advance(endedItem: "shorts/2"), from: id, at: t)
      {
        endings += events.kinds
      }
    }
    let switches = endings.filter {
      switch $0 {
      case .autoAdvanced, .reachedEnd: true
      default: false
      }
    }
    #expect(switches.count == 1)
    if advances {
      #expect(switches == [.autoAdvanced(from: "shorts/2", to: "shorts/3")])
      #expect(engine.state.session?.item.id == "shorts/3")
    } else {
      #expect(switches == [.reachedEnd(item: "shorts/2")])
    }
  }
}
