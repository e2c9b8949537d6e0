import Participation
import PlaybackCoordination
import RoomCrypto
import Testing
import WireProtocol

/// What is said to some members only is sealed for them with their own keys, in every room:
/// the relay (and whoever it feeds a copy of the room) carries ciphertext; another member,
/// even one holding the room's password, cannot open it.
@Suite("Private messages, participant side, on virtual time")
struct PrivateMessageTests {
  func received(_ net: SimulatedNetwork, _ index: Int) -> [String] {
    net.members[index].events.compactMap {
      guard case .message(_, let name, "chat", let body, let to, _) = $0 else { return nil }
      return
        "\(name): \(body)\(to.map { " (to \($0.map(\.rawValue).joined(separator: ",")))" } ?? "")"
    }
  }

  /// ann, bob and carl in one room, each key known to the others.
  func room(password: String? = nil) -> SimulatedNetwork {
    let net = SimulatedNetwork()
    for name in ["ann", "bob", "carl"] {
      net.join(name, password: password) { $0.room = "movie-night" }
      net.run(for: 0.5)
    }
    return net
  }

  @Test(
    "a /tell reaches bob alone; the relay sees neither the words nor the kind",
    arguments: [nil, "correct horse"])
  func sealedForBob(password: String?) throws {
    let net = room(password: password)
    #expect(net.state(0).participants.allSatisfy { $0.sealingKey != nil })
    let bob = try #require(net.members[1].core.participant)
    let ticket = net.request(
      .message(kind: "chat", body: "carl keeps pausing lol", to: .only([bob])), from: 0)
    net.run(for: 0.5)
    #expect(net.members[0].answers[ticket]?.last.map { (try? $0.get()) != nil } == true)
    #expect(received(net, 1) == ["ann: carl keeps pausing lol (to \(bob.rawValue))"])
    #expect(received(net, 2).isEmpty)
    let inbound = net.relayInbound.map { String(decoding: $0, as: UTF8.self) }.joined(
      separator: "\n")
    #expect(inbound.contains(#""kind":"private""#))
    for secret in ["keeps pausing", "lol", #""kind":"chat""#] {
      #expect(!inbound.contains(secret), "the relay received \(secret)")
    }
  }

  @Test("a relay that hands carl bob's private message (or a copy carl was fed) gets carl nothing")
  func othersCannotOpen() throws {
    let net = room(password: "correct horse")
    let bob = try #require(net.members[1].core.participant)
    let ann = try #require(net.members[0].core.participant)
    net.request(.message(kind: "chat", body: "psst", to: .only([bob])), from: 0)
    net.run(for: 0.5)
    let line = try #require(
      net.relayInbound.map { String(decoding: $0, as: UTF8.self) }.last { $0.contains("private") })
    guard case .send(_, _, let kind, let body, _) = try WireCodec().decodeClient(Array(line.utf8))
    else {
      Issue.record("not a send: \(line)")
      return
    }
    // Delivered to carl, as a relay that lies (or a successor reading its copy) would.
    let effects = net.members[2].core.received(
      .message(from: ann, fromName: "ann", seq: 9, kind: kind, body: body, to: [bob]),
      at: net.now, seen: nil)
    let shown = effects.compactMap { effect -> String? in
      guard case .event(let event) = effect else { return nil }
      if case .message(_, _, _, let text, _, _) = event { return "message: \(text)" }
      if case .notice(let notice) = event { return "notice: \(notice)" }
      return nil
    }
    #expect(shown.count == 1)
    #expect(!shown.contains { $0.contains("psst") }, "\(shown)")
    #expect(shown.first?.hasPrefix("notice:") == true, "\(shown)")
  }

  @Test("someone whose key the room does not have is not sent a private message: it says why")
  func noKeyNoMessage() throws {
    let net = room()
    let carl = try #require(net.members[2].core.participant)
    // A relay that dropped carl's key (or a client that never sent one).
    var state = net.members[0].core.state
    let index = try #require(state.participants.firstIndex { $0.id == carl })
    state.participants[index].sealingKey = nil
    _ = net.members[0].core.received(.update(state: state, events: []), at: net.now, seen: nil)
    let before = net.relayInbound.count
    let ticket = net.request(.message(kind: "chat", body: "psst", to: .only([carl])), from: 0)
    net.run(for: 0.2)
    guard case .failure(let error)? = net.members[0].answers[ticket]?.last else {
      Issue.record("not refused: \(String(describing: net.members[0].answers[ticket]))")
      return
    }
    #expect(error.description.contains("carl's key for private messages"), "\(error)")
    #expect(
      !net.relayInbound[before...].contains { String(decoding: $0, as: UTF8.self).contains("psst") }
    )
  }
}
