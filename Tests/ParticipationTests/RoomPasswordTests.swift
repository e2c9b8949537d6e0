import Participation
import PlaybackCoordination
import Testing
import WireProtocol

@Suite("A room with a password, participant side, on virtual time")
struct RoomPasswordTests {
  func chats(_ net: SimulatedNetwork, _ index: Int) -> [String] {
    net.members[index].events.compactMap {
      guard case .message(_, _, "chat", let body, _, _) = $0 else { return nil }
      return body
    }
  }

  func errors(_ net: SimulatedNetwork, _ index: Int) -> [String] {
    net.members[index].events.compactMap {
      guard case .notice(let notice) = $0 else { return nil }
      return notice.description
    }
  }

  @Test("with the password: in, and chat reaches the others although the relay never reads it")
  func sealedChat() throws {
    let net = SimulatedNetwork()
    let ann = net.join("ann", password: "correct horse") { $0.room = "movie-night" }
    net.run(for: 0.5)
    let bob = net.join("bob", password: "correct horse\n") { $0.room = "movie-night" }
    net.run(for: 0.5)
    #expect((try? net.members[ann].started?.get()) != nil)
    #expect((try? net.members[bob].started?.get()) != nil)
    #expect(net.state(ann).participants.map(\.name) == ["ann", "bob"])
    #expect(net.members[bob].core.snapshot(at: net.now, seen: nil).messagesSealed)

    net.request(.message(kind: "chat", body: "the secret plot twist 🎬", to: .all), from: bob)
    net.request(.react("gasp at the lighthouse"), from: ann)
    net.run(for: 0.5)
    #expect(chats(net, ann) == ["the secret plot twist 🎬"])
    #expect(
      net.members[bob].events.contains {
        if case .reaction(_, "ann", let reaction, false) = $0 {
          reaction.text == "gasp at the lighthouse"
        } else {
          false
        }
      })
    // Both are the room's conversation: marked to keep, sealed all the same.
    #expect(
      net.relayInbound.map { String(decoding: $0, as: UTF8.self) }
        .filter { $0.contains(#""keep":true"#) && $0.contains(#""kind":"sealed""#) }.count == 2)
    // Everything the relay received, every byte: no chat text, no reaction, no kind.
    let inbound = net.relayInbound.map { String(decoding: $0, as: UTF8.self) }.joined(
      separator: "\n")
    #expect(inbound.contains(#""kind":"sealed""#))
    for secret in [
      "secret plot", "plot twist", "🎬", "gasp", "lighthouse", "correct horse", #""kind":"chat""#,
    ] {
      #expect(!inbound.contains(secret), "the relay received \(secret)")
    }
  }

  @Test(
    "deriving the room's keys may take longer than the answer timeout (a slow device): the participant still enters"
  )
  func slowDerivation() {
    let net = SimulatedNetwork()
    let ann = net.join("ann", password: "correct horse") { $0.room = "movie-night" }
    net.run(for: 0.5)
    net.keyDerivationSeconds = ParticipantConfiguration(name: "x").answerTimeout * 2
    let bob = net.join("bob", password: "correct horse") { $0.room = "movie-night" }
    net.run(for: net.keyDerivationSeconds + 1)
    #expect((try? net.members[bob].started?.get()) != nil)
    #expect(errors(net, bob).isEmpty)
    #expect(net.state(ann).participants.map(\.name) == ["ann", "bob"])
  }

  @Test("a wrong password is refused with the relay's words; none at all asks for one")
  func refusals() throws {
    let net = SimulatedNetwork()
    net.join("ann", password: "correct horse") { $0.room = "movie-night" }
    net.run(for: 0.5)
    let eve = net.join("eve", password: "guess") { $0.room = "movie-night" }
    let dan = net.join("dan") { $0.room = "movie-night" }
    net.run(for: 0.5)
    func failure(_ index: Int) -> ClientError? {
      guard case .failure(let error) = net.members[index].started else { return nil }
      return error
    }
    #expect(
      failure(eve)
        == .refused(code: .wrongPassword, message: "wrong password for room movie-night"))
    #expect(failure(dan) == .passwordRequired(room: "movie-night"))
    #expect(net.members[eve].finished && net.members[dan].finished)
    #expect(net.runtime.state(ofRoom: "movie-night")?.participants.map(\.name) == ["ann"])
  }

  @Test("after a dropped connection a member resumes without a new proof and chat still opens")
  func resumeKeepsKeys() {
    let net = SimulatedNetwork()
    let ann = net.join("ann", password: "pw") { $0.room = "r" }
    net.run(for: 0.5)
    let bob = net.join("bob", password: "pw") { $0.room = "r" }
    net.run(for: 0.5)
    net.dropAll()
    net.run(for: 2)
    net.request(.message(kind: "chat", body: "back?", to: .all), from: ann)
    net.run(for: 0.5)
    #expect(chats(net, bob) == ["back?"])
    #expect(net.members[bob].core.status == .connected)
  }

  @Test(
    "after the relay restarted without its rooms, the room comes back protected by the same password"
  )
  func relayRestartRecreates() {
    let net = SimulatedNetwork()
    let ann = net.join("ann", password: "pw") { $0.room = "r" }
    net.run(for: 0.5)
    let bob = net.join("bob", password: "pw") { $0.room = "r" }
    net.run(for: 0.5)
    net.restartRelay(epoch: "epoch-2")
    net.run(for: 3)
    #expect(net.runtime.state(ofRoom: "r")?.participants.count == 2)
    net.request(.message(kind: "chat", body: "still private", to: .all), from: bob)
    net.run(for: 0.5)
    #expect(chats(net, ann) == ["still private"])
    // Someone without the password is still kept out.
    let eve = net.join("eve") { $0.room = "r" }
    net.run(for: 0.5)
    #expect(net.members[eve].finished)
  }

  @Test("in a room with a password, a message that does not open is reported, never shown")
  func unopenable() {
    let net = SimulatedNetwork()
    let ann = net.join("ann", password: "pw") { $0.room = "r" }
    net.run(for: 0.5)
    let bob = net.join("bob", password: "pw") { $0.room = "r" }
    net.run(for: 0.5)
    // Sent raw (as a hostile client could), sealed and not sealed: the relay refuses the
    // plain one, and bob cannot open the forged one.
    net.request(.command(.join), from: ann)  // keep ids moving; irrelevant to the check
    net.rawSend(
      .send(
        seq: 999, to: .all, kind: "sealed", body: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
      from: ann)
    net.run(for: 0.5)
    #expect(chats(net, bob).isEmpty)
    #expect(errors(net, bob).contains { $0.hasPrefix("a message from ann was not shown") })
  }
}
