import ParticipantRuntime
import Participation
import PlaybackCoordination
import TestSupport
import Testing
import WireProtocol

/// Collects what an observer sees of one sender: its seeks (from the relay's steps) and its
/// messages, in arrival order.
actor Tally {
  var counts: [String: Int] = [:]
  func add(_ key: String) { counts[key, default: 0] += 1 }
}

actor DeliveryLog {
  var seeks: [Double] = []
  var messages: [String] = []
  func seek(_ to: Double) { seeks.append(to) }
  func message(_ body: String) { messages.append(body) }
}

@Suite("Nothing lost, nothing twice, in order", .serialized, .timeLimit(.minutes(1)))
struct OrderedDeliveryTests {
  @Test(
    "many tasks interleave hundreds of commands and messages through reconnections: each applies or is refused exactly once, in per-sender order",
    arguments: TransportKind.allCases)
  func concurrentRequestsThroughReconnections(kind: TransportKind) async throws {
    // A burst of 480 requests: within the relay's rate limit and the client's outbox.
    var configuration = RelayHarness.fastConfiguration
    configuration.messageBurst = 2000
    configuration.messagesPerSecond = 2000
    let relay = try await RelayHarness(kind, configuration: configuration)
    // Time stands still here: ann reconnects at once after each cut.
    let ann = try await relay.participant("ann") {
      $0.maximumUnansweredRequests = 500
      $0.reconnectInitialDelay = 0
    }
    let bob = try await relay.participant("bob")
    try await ann.send(.start(series: testSeries, item: "harbour/s1e1")).get()
    await eventually("bob sees the session") { await bob.groupState.session != nil }
    try await bob.send(.join).get()
    try await ann.send(.pause(item: "harbour/s1e1", at: 0)).get()
    let annID = try #require(await ann.participantID)

    let log = DeliveryLog()
    let observer = relay.task {
      for await event in bob.events {
        switch event {
        case .state(_, let changes):
          for change in changes where change.originator == annID {
            if case .seeked(let to) = change.kind { await log.seek(to) }
          }
        case .message(_, _, "order", let body, _, _):
          await log.message(body)
        default: break
        }
      }
    }

    let tasks = 6
    let perTask = 40
    // Each task seeks to positions only it uses and sends messages only it sends, without
    // waiting between them; the first also cuts ann's connection now and then, wherever
    // the others happen to be.
    let outcomes = Tally()
    await withTaskGroup(of: Void.self) { group in
      for k in 0..<tasks {
        group.addTask {
          await withTaskGroup(of: Void.self) { inner in
            for j in 0..<perTask {
              let position = Double(k) * 40 + Double(j) * 0.5 + 0.25
              await ann.submit(.message(kind: "order", body: "\(k):\(j)", to: .all))
              inner.addTask {
                let result = await ann.send(.seek(item: "harbour/s1e1", to: position))
                let key: String
                switch result {
                case .success: key = "applied"
                case .failure(.rejected): key = "refused"
                case .failure(let error): key = "other: \(error)"
                }
                await outcomes.add(key)
              }
              if j % 7 == 3 { await Task.yield() }
              if k == 0, j % 10 == 5 { await ann.dropConnection() }
            }
          }
        }
      }
    }

    let counts = await outcomes.counts
    #expect(counts["applied", default: 0] + counts["refused", default: 0] == tasks * perTask)
    #expect(counts.keys.allSatisfy { $0 == "applied" || $0 == "refused" }, "\(counts)")
    await eventually("bob has seen every seek and every message", within: 20) {
      let seen = await log.seeks.count
      let messages = await log.messages.count
      return seen >= counts["applied", default: 0] && messages >= tasks * perTask
    }
    let seeks = await log.seeks
    let messages = await log.messages
    #expect(seeks.count == counts["applied", default: 0], "no seek applied twice")
    #expect(Set(seeks).count == seeks.count)
    #expect(messages.count == tasks * perTask, "every message arrives once")
    #expect(Set(messages).count == messages.count)
    for k in 0..<tasks {
      let mine = messages.filter { $0.hasPrefix("\(k):") }.map { Int($0.split(separator: ":")[1])! }
      #expect(mine == Array(0..<perTask), "task \(k)'s messages arrive in the order sent")
    }
    // Periodic reports keep coming; each is answered soon after it is sent.
    await eventually("ann's outbox empties") { await ann.snapshot().unansweredRequests == 0 }
    observer.cancel()
    await ann.stop()
    await bob.stop()
    await relay.stop()
  }

  @Test("quick relative seeks and rate steps add up instead of starting from a stale position")
  func relativeRequestsCompose() async throws {
    let relay = try await RelayHarness(.inMemory)
    let ann = try await relay.participant("ann")
    try await ann.send(.start(series: testSeries, item: "harbour/s1e1")).get()
    try await ann.send(.pause(item: "harbour/s1e1", at: 160)).get()
    try await ann.send(.setRate(item: "harbour/s1e1", rate: 1.25)).get()
    for _ in 0..<5 { await ann.submit(.playback(.seekBy(10))) }
    for _ in 0..<3 { await ann.submit(.playback(.changeRate(by: 0.25))) }
    await eventually("every request is answered") {
      await ann.snapshot().unansweredRequests == 0
    }
    let session = try #require(await ann.groupState.session)
    #expect(session.timeline.itemTime == 210)
    #expect(session.playbackRate == 2)
    await ann.stop()
    await relay.stop()
  }
}
