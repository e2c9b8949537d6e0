import HeadlessFront
import ParticipantRuntime
import Participation
import PlaybackCoordination
import TestSupport
import Testing
import WireProtocol

/// Reactions, and what someone who enters later missed, end to end over a real relay.
@Suite(
  "The room's conversation: reactions and the backlog, on both transports", .serialized,
  .timeLimit(.minutes(1)))
struct ConversationSessionTests {
  /// A room with or without a password, on each transport.
  static let cases: [(TransportKind, String?)] = TransportKind.allCases.flatMap {
    [($0, nil), ($0, "correct horse")]
  }

  /// What `client` hears of the conversation from now on, one line each:
  /// "chat ann: hi", "reaction ann 😂 0", prefixed "earlier " for the backlog.
  func conversation(_ client: ParticipantClient, in relay: RelayHarness) -> MessageLog {
    let log = MessageLog()
    relay.task {
      for await event in client.events {
        switch event {
        case .message(_, let name, .chat, let body, let to, let earlier):
          let only = to == nil ? "" : " (only)"
          await log.add("\(earlier ? "earlier " : "")chat \(name): \(body)\(only)")
        case .reaction(_, let name, let reaction, let earlier):
          await log.add(
            "\(earlier ? "earlier " : "")reaction \(name) \(reaction.text) \(Int(reaction.at))")
        default: break
        }
      }
    }
    return log
  }

  @Test(
    "a reaction reaches everyone with who and when (its sender too); someone who enters later gets the chat and reactions said to everyone once, in order, marked earlier, never a private line",
    arguments: cases)
  func reactionsAndBacklog(kind: TransportKind, password: String?) async throws {
    let relay = try await RelayHarness(kind)
    let room = password == nil ? "lobby" : "movie-night"
    let ann = try await relay.participant("ann", room: room, password: password)
    let bob = try await relay.participant("bob", room: room, password: password)
    let annHeard = conversation(ann, in: relay)
    let bobHeard = conversation(bob, in: relay)
    await eventually("both are in, with the keys private lines are sealed with") {
      let people = await ann.groupState.participants
      return people.count == 2 && people.allSatisfy { $0.sealingKey != nil }
    }
    let bobID = try #require(await bob.participantID)
    var performer = ActionPerformer(client: ann, catalog: [])
    await ann.sendMessage(kind: .chat, body: "popcorn ready")
    await ann.sendMessage(kind: .chat, body: "psst bob", to: .only([bobID]))
    guard case .done = await performer.perform(.react("😂")) else {
      Issue.record("the reaction did not go")
      return
    }
    // Out of bounds: refused in words before it goes.
    guard case .error(let refusal) = await performer.perform(.react("one two three four five six"))
    else {
      Issue.record("six words went as a reaction")
      return
    }
    #expect(refusal.contains("at most 5 words"))
    await eventually("bob hears all three") { await bobHeard.entries.count == 3 }
    #expect(
      await bobHeard.entries == [
        "chat ann: popcorn ready", "chat ann: psst bob (only)", "reaction ann 😂 0",
      ])
    #expect(await annHeard.entries == ["reaction ann 😂 0"], "her own, as it went out")

    // cat comes later: the room's conversation, once, in order, marked earlier.
    let cat = try await relay.participant("cat", room: room, password: password)
    let catHeard = conversation(cat, in: relay)
    await eventually("cat hears what was said") { await catHeard.entries.count == 2 }
    await bob.sendMessage(kind: .chat, body: "hi cat")
    await eventually("and then what is said now") { await catHeard.entries.count == 3 }
    #expect(
      await catHeard.entries == [
        "earlier chat ann: popcorn ready", "earlier reaction ann 😂 0", "chat bob: hi cat",
      ])
    // bob, already in, hears no backlog.
    #expect(await bobHeard.entries.allSatisfy { !$0.hasPrefix("earlier") })
    if password != nil {
      // What the relay keeps for newcomers is sealed: not the words.
      let runtime = try #require(relay.memory?.runtime ?? relay.server?.runtime)
      let kept = runtime.storedRooms().flatMap(\.backlog)
      #expect(kept.count == 3, "popcorn, the reaction, hi cat")
      for stored in kept {
        guard case .message(_, _, _, let kind, let body, _, _) = stored.message else { continue }
        #expect(kind == MessageKind.sealed && !body.contains("popcorn") && !body.contains("😂"))
      }
    }
    await ann.stop()
    await bob.stop()
    await cat.stop()
    await relay.stop()
  }

  @Test(
    "headless: react prints who, what and when; a line naming this person is marked mention; the backlog is marked earlier",
    arguments: TransportKind.allCases)
  func headless(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let ann = try await relay.participant("ann")
    await ann.sendMessage(kind: .chat, body: "before bob came")
    let bob = try await relay.participant("bob")
    await eventually("both are in") { await ann.groupState.participants.count == 2 }
    let output = OutputLines()
    let runner = HeadlessRunner(client: bob, catalog: [testSeries]) { line in output.add(line) }
    let (input, feed) = AsyncStream<String>.makeStream()
    let running = relay.task { await runner.run(input: input) }
    feed.yield("react 😮")
    await ann.sendMessage(kind: .chat, body: "Bob, popcorn?")
    await ann.sendMessage(kind: .chat, body: "bobby tables")
    await eventually("the lines are out") {
      output.lines.contains { $0.contains("bobby tables") }
        && output.lines.contains { $0.contains(#""event":"reaction""#) }
    }
    let lines = output.lines
    let earlier = try #require(lines.first { $0.contains("before bob came") })
    #expect(earlier.contains(#""earlier":true"#))
    let mention = try #require(lines.first { $0.contains("Bob, popcorn?") })
    #expect(mention.contains(#""mention":true"#), "\(mention)")
    let plain = try #require(lines.first { $0.contains("bobby tables") })
    #expect(!plain.contains("mention"), "\(plain)")
    let reaction = try #require(lines.first { $0.contains(#""event":"reaction""#) })
    #expect(reaction.contains(#""from":"bob""#) && reaction.contains(#""text":"😮""#))
    #expect(reaction.contains(#""at":0"#) && reaction.contains(#""mine":true"#), "\(reaction)")
    feed.finish()
    await running.value
    await ann.stop()
    await bob.stop()
    await relay.stop()
  }
}
