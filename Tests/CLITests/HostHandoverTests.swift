import Foundation
import Invites
import ParticipantRuntime
import RelayTLS
import TCPRelayClient
import Testing

/// A host leaves "only me" (the end of its input, or SIGTERM) and the room goes on on the
/// first successor's machine: real processes on loopback, as people run them.
@Suite("The host leaves, the room stays", .serialized)
struct HostHandoverTests {
  /// ann hosts (headless); bob and carl join and watch. Returns the three processes once
  /// the session plays and ann knows bob would carry the room.
  static func room(hostArguments: [String] = []) async throws -> (
    ann: CowatchProcess, bob: CowatchProcess, carl: CowatchProcess
  ) {
    let (ann, bob, carl, _) = try await roomWithRelay(hostArguments: hostArguments)
    return (ann, bob, carl)
  }

  /// The same, with how to reach ann's relay (over TLS, pinned to its certificate).
  static func roomWithRelay(hostArguments: [String] = []) async throws -> (
    ann: CowatchProcess, bob: CowatchProcess, carl: CowatchProcess, relay: TCPTransport
  ) {
    let ann = try CowatchProcess(
      ["host", "--bind", "127.0.0.1", "--port", "0", "--name", "ann", "--headless"]
        + hostArguments)
    let invite = try #require(
      await ann.waitForLine(containing: [#""event":"invite""#]), "the host's invite")
    // One link, as a friend gets it: room, address and certificate in one word.
    let text = try #require(invite.firstMatch(of: #/"link":"(cowatch:[^"]+)"/#)).1
    let link = try InviteLink.parse(String(text))
    #expect(invite.contains(#""command":"cowatch join \#(text) --name NAME""#))
    let port = try #require(link.addresses.first?.split(separator: ":").last)
    let fingerprint = try #require(link.fingerprint)
    func join(_ name: String) throws -> CowatchProcess {
      try CowatchProcess(["join", String(text), "--name", name, "--headless"])
    }
    let bob = try join("bob")
    await bob.waitForLine(containing: [#""event":"welcome""#])
    let carl = try join("carl")
    await carl.waitForLine(containing: [#""event":"welcome""#])
    await ann.waitForLine(containing: [#""event":"succession""#, #"["bob","carl"]"#])
    ann.send("start harbour/s1e1")
    await bob.waitForLine(containing: [#""event":"session""#, #""phase":"waiting""#])
    bob.send("join")
    await carl.waitForLine(containing: [#""event":"session""#, #""phase":"waiting""#])
    carl.send("join")
    await ann.waitForLine(containing: [#""kind":"joined""#, #""originator":"carl""#])
    let relay = TCPTransport(
      host: "127.0.0.1", port: Int(port) ?? 0,
      tls: RelayVerification(pinned: fingerprint, knownRelays: nil))
    return (ann, bob, carl, relay)
  }

  /// After ann left: bob and carl are in the same session on bob's relay, and it works.
  static func goesOn(bob: CowatchProcess, carl: CowatchProcess) async throws {
    await carl.waitForLine(containing: [#""kind":"exited""#, "ann left the room"])
    let moved = await carl.waitForLine(containing: [#""event":"moved""#])
    #expect(moved?.contains("the room now runs on bob's machine") == true)
    await bob.waitForLine(containing: [#""event":"moved""#, "your machine"])
    let back = try #require(
      await carl.waitForLine(containing: [#""event":"welcome""#, #""resumed":true"#]))
    #expect(back.contains(#""relay_restarted":true"#))
    await bob.waitForLine(containing: [#""event":"welcome""#, #""resumed":true"#])
    // The room works on its new relay: carl pauses, bob hears it.
    carl.send("pause")
    await bob.waitForLine(containing: [#""kind":"paused""#, #""originator":"carl""#])
    bob.send("status")
    let status = try #require(await bob.waitForLine(containing: [#""event":"status""#]))
    #expect(status.contains(#""item":"harbour/s1e1""#))
    #expect(status.contains(#""session":1"#))
  }

  @Test("the headless host's input ends: it leaves only itself, the others go on on bob's machine")
  func endOfInput() async throws {
    let (ann, bob, carl) = try await Self.room()
    defer { [ann, bob, carl].forEach { $0.terminate() } }
    ann.closeInput()
    #expect(await ann.exitStatus() == 0)
    // The link it printed at the start reaches nobody now: it prints the one that does.
    let moved = try #require(
      ann.output.last { $0.contains(#""event":"invite""#) && $0.contains(#""moved_to":"bob""#) },
      "\(ann.output.suffix(5))")
    let text = try #require(moved.firstMatch(of: #/"link":"(cowatch:[^"]+)"/#)).1
    let link = try InviteLink.parse(String(text))
    try await Self.goesOn(bob: bob, carl: carl)
    // A friend who comes late, with that link, reaches the room on bob's machine.
    let dan = try CowatchProcess(["join", String(text), "--name", "dan", "--headless"])
    defer { dan.terminate() }
    #expect(link.fingerprint != nil)
    await dan.waitForLine(containing: [#""event":"welcome""#])
    dan.send("status")
    let status = try #require(await dan.waitForLine(containing: [#""event":"status""#]))
    #expect(status.contains(#""item":"harbour/s1e1""#))
    dan.closeInput()
    // bob's relay carries this room only: a stranger's room (or a typo) is refused there.
    let eve = try CowatchProcess([
      "join", try #require(link.addresses.first), "--room", "elsewhere", "--name", "eve",
      "--headless", "--fingerprint", try #require(link.fingerprint),
    ])
    defer { eve.terminate() }
    #expect(await eve.exitStatus(within: 10) != 0)
    #expect(
      eve.standardError.contains(
        "there is no room elsewhere here: this relay runs room lobby only"),
      "\(eve.standardError)")
    bob.closeInput()
    carl.closeInput()
    #expect(await bob.exitStatus() == 0)
    #expect(await carl.exitStatus() == 0)
  }

  /// This machine's first address other than loopback, if it has one: where friends on
  /// the LAN would reach it, and where its own participants reach its relays too.
  static var lanAddress: String? {
    let ip = Process()
    ip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    ip.arguments = ["ip", "-4", "-o", "addr", "show", "scope", "global"]
    let out = Pipe()
    ip.standardOutput = out
    ip.standardError = FileHandle.nullDevice
    guard (try? ip.run()) != nil else { return nil }
    ip.waitUntilExit()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return text.firstMatch(of: #/inet (\d+\.\d+\.\d+\.\d+)//#).map { String($0.1) }
  }

  @Test(
    "the first night at a LAN address: ann leaves \"only me\", the room moves to bob's, bob's machine dies, carl carries on alone",
    .enabled(if: lanAddress != nil, "needs an address other than loopback"))
  func secondDeathAtLANAddress() async throws {
    // Everyone reaches the relays at the machine's LAN address, as friends on a LAN do:
    // bob's own participant too, so its relay must know it by its key, not by loopback.
    let (ann, bob, carl) = try await Self.room(hostArguments: ["--bind", Self.lanAddress!])
    defer { [ann, bob, carl].forEach { $0.terminate() } }
    ann.closeInput()
    #expect(await ann.exitStatus() == 0)
    try await Self.goesOn(bob: bob, carl: carl)
    let before = carl.output.count
    await bob.killNow()
    let back = await carl.waitForLine(
      after: before, containing: [#""event":"welcome""#, #""resumed":true"#], within: 20)
    #expect(back != nil, "carl never carried on alone: \(carl.output.suffix(8))")
    carl.send("play")
    await carl.waitForLine(
      after: before,
      containing: [#""event":"state""#, #""state":"playing""#, #""originator":"carl""#])
    #expect(
      !carl.output.contains { $0.contains("does not carry room") }
        && !carl.standardError.contains("does not carry room"),
      "carl's own relay refused the room it should carry")
  }

  @Test("SIGTERM to the host is leaving only itself too")
  func terminated() async throws {
    let (ann, bob, carl) = try await Self.room()
    defer { [ann, bob, carl].forEach { $0.terminate() } }
    ann.terminate()
    #expect(await ann.exitStatus() == 0)
    try await Self.goesOn(bob: bob, carl: carl)
  }

  @Test("kill -9 of the host: bob and carl elect bob's machine and go on there, same places")
  func killed() async throws {
    let (ann, bob, carl) = try await Self.room()
    defer { [ann, bob, carl].forEach { $0.terminate() } }
    let carlWelcome = try #require(
      await carl.waitForLine(containing: [#""event":"welcome""#, #""resumed":false"#]))
    await ann.killNow()
    let back = try #require(
      await carl.waitForLine(containing: [#""event":"welcome""#, #""resumed":true"#]))
    #expect(back.contains(#""relay_restarted":true"#))
    // The same member as before.
    let id = try #require(carlWelcome.firstMatch(of: #/"participant":"(p\d+)"/#)).1
    #expect(back.contains(#""participant":"\#(id)""#))
    await bob.waitForLine(containing: [#""event":"welcome""#, #""resumed":true"#])
    carl.send("pause")
    await bob.waitForLine(containing: [#""kind":"paused""#, #""originator":"carl""#])
    bob.send("status")
    let status = try #require(await bob.waitForLine(containing: [#""event":"status""#]))
    #expect(status.contains(#""item":"harbour/s1e1""#))
  }

  @Test(
    "the host's machine sleeps past the others' patience: they go on at bob's; awake, ann's relay sends her there"
  )
  func stoppedThenResumed() async throws {
    let (ann, bob, carl, annRelay) = try await Self.roomWithRelay()
    defer {
      kill(ann.processIdentifier, SIGCONT)
      for process in [ann, bob, carl] { process.terminate() }
    }
    kill(ann.processIdentifier, SIGSTOP)
    // The relay's silence (10 s) tells bob and carl; they elect bob's machine.
    await carl.waitForLine(containing: [#""event":"welcome""#, #""resumed":true"#], within: 25)
    await bob.waitForLine(containing: [#""event":"welcome""#, #""resumed":true"#], within: 5)
    let before = ann.output.count
    kill(ann.processIdentifier, SIGCONT)
    // Awake, ann's relay finds bob's running the room and sends ann there; it does not
    // run the room on beside it.
    let moved = await ann.waitForLine(
      after: before, containing: [#""event":"moved""#], within: 10)
    #expect(moved?.line.contains("the room now runs on bob's machine") == true)
    await ann.waitForLine(after: before, containing: [#""event":"welcome""#], within: 10)
    // ann's relay let the room go: asked, it says it does not run it.
    #expect(await RoomLocating.locate("lobby", at: nil, over: annRelay) == .elsewhere)
    // One room: what ann does, bob and carl see.
    ann.send("pause")
    await carl.waitForLine(containing: [#""kind":"paused""#, #""originator":"ann""#])
    await bob.waitForLine(containing: [#""kind":"paused""#, #""originator":"ann""#])
  }
}
