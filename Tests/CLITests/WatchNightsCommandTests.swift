import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The room remembers across nights, on every member's machine: the next night, whoever
/// hosts its name is offered to continue.
@Suite("Continue where we left off, from the command line", .serialized)
struct WatchNightsCommandTests {
  @Test(
    "night 1: ann hosts club, bob joins, they pause at 1:40 with S1E3 queued, everyone quits; night 2 on bob's machine: the offer names ann, continue brings back the item, the position and the queue; forget removes it"
  )
  func continueNextNight() async throws {
    let base = CowatchProcess.runDirectory + "/nights-\(UUID().uuidString)"
    // Each person's machine: a state directory of its own.
    let annState = ["XDG_STATE_HOME": base + "/ann/state", "XDG_CONFIG_HOME": base + "/ann/config"]
    let bobState = ["XDG_STATE_HOME": base + "/bob/state", "XDG_CONFIG_HOME": base + "/bob/config"]
    func host(_ name: String, on machine: [String: String]) throws -> CowatchProcess {
      try CowatchProcess(
        [
          "host", "--bind", "127.0.0.1", "--port", "0", "--name", name, "--room", "club",
          "--headless", "--no-carry",
        ], environment: machine)
    }

    // Night 1.
    let ann = try host("ann", on: annState)
    defer { ann.terminate() }
    let invite = try #require(
      await ann.waitForLine(containing: [#""event":"invite""#]), "the host's invite")
    let link = String(try #require(invite.firstMatch(of: #/"link":"(cowatch:[^"]+)"/#)).1)
    let bob = try CowatchProcess(
      ["join", link, "--name", "bob", "--headless", "--no-carry"], environment: bobState)
    defer { bob.terminate() }
    await bob.waitForLine(containing: [#""event":"welcome""#])
    ann.send("start harbour/s1e1")
    await bob.waitForLine(containing: [#""kind":"session-started""#])
    bob.send("join")
    bob.send("queue add harbour/s1e3")
    await ann.waitForLine(containing: [#""kind":"queue-added""#])
    ann.send("pause")
    await bob.waitForLine(containing: [#""kind":"paused""#])
    ann.send("seek 1:40")
    await bob.waitForLine(containing: [#""kind":"seeked""#])
    // Everyone quits: every process of the night stops.
    bob.closeInput()
    #expect(await bob.exitStatus(within: 20) == 0)
    ann.closeInput()
    #expect(await ann.exitStatus(within: 20) == 0)
    #expect(ann.output.allSatisfy { !$0.contains(#""event":"last-time""#) }, "a first night")

    // Night 2, on bob's machine, who only ever joined.
    let night2 = try host("bob", on: bobState)
    defer { night2.terminate() }
    let offer = try #require(
      await night2.waitForLine(containing: [#""event":"last-time""#]), "the offer to continue")
    #expect(offer.contains(#""room":"club""#), "\(offer)")
    #expect(offer.contains(#""item":"harbour/s1e1""#), "\(offer)")
    #expect(offer.contains(#""position":100"#), "\(offer)")
    #expect(offer.contains(#""with":["ann"]"#), "\(offer)")
    #expect(offer.contains(#""queue":[{"item":"harbour/s1e3""#), "\(offer)")
    #expect(offer.contains("at 1:40, with ann — continue?"), "\(offer)")
    await night2.waitForLine(containing: [#""event":"welcome""#])
    night2.send("continue")
    let note = try #require(await night2.waitForLine(containing: [#""event":"note""#]))
    #expect(note.contains("continuing"), "\(note)")
    night2.send("status")
    let status = try #require(await night2.waitForLine(containing: [#""event":"status""#]))
    #expect(status.contains(#""item":"harbour/s1e1""#), "\(status)")
    #expect(status.contains(#""group_position":100"#), "\(status)")
    #expect(status.contains(#""queue":[{"place":1,"item":"harbour/s1e3""#), "\(status)")
    night2.closeInput()
    #expect(await night2.exitStatus(within: 20) == 0)

    // Forgetting is explicit, and says what it removed.
    let forget = try CowatchProcess(["forget", "club"], environment: bobState)
    let forgot = try #require(await forget.waitForLine(containing: ["forgot room club"]))
    #expect(forgot.contains("Harbour"), "\(forgot)")
    #expect(await forget.exitStatus() == 0)
    let again = try CowatchProcess(["forget", "club"], environment: bobState)
    await again.waitForLine(containing: ["remembers nothing of room club"])
    #expect(await again.exitStatus() == 0)
  }

  @Test(
    "a serve relay keeps the room its owner asked for: ann says keep-room on, pauses at 1:40 and quits; the relay stops and starts again with a retention of 0; bob finds club paused at 1:40"
  )
  func relayKeepsOnRequest() async throws {
    let folder = CowatchProcess.runDirectory + "/kept-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let file = folder + "/relay.sqlite"
    let host = CowatchProcess.ownLoopbackHost()
    func serve(port: String) throws -> CowatchProcess {
      try CowatchProcess([
        "serve", "--host", host, "--port", port, "--store", file, "--store-retention", "0",
        "--metrics", "\(host):0",
      ])
    }
    func join(_ name: String, port: String) throws -> CowatchProcess {
      try CowatchProcess([
        "join", "\(host):\(port)", "--room", "club", "--name", name, "--headless",
        "--trust-new-relay",
      ])
    }
    var relay = try serve(port: "0")
    defer { relay.terminate() }
    let listening = try #require(await relay.waitForLine(containing: ["listening on \(host):"]))
    let port = try #require(listening.split(separator: ":").last.map(String.init))
    let metrics = try #require(await RelayRestartProcessTests.metricsURL(of: relay))

    let ann = try join("ann", port: port)
    defer { ann.terminate() }
    let welcome = try #require(await ann.waitForLine(containing: [#""event":"welcome""#]))
    #expect(welcome.contains(#""keeps_rooms":true"#), "\(welcome)")
    ann.send("start harbour/s1e1")
    ann.send("keep-room on")
    let asked = try #require(await ann.waitForLine(containing: [#""kind":"keep-room""#]))
    #expect(asked.contains("asked the relay to keep the room"), "\(asked)")
    ann.send("pause")
    await ann.waitForLine(containing: [#""kind":"paused""#])
    ann.send("seek 1:40")
    await ann.waitForLine(containing: [#""kind":"seeked""#])
    ann.closeInput()
    #expect(await ann.exitStatus(within: 20) == 0)
    // The relay's metrics: the room is still there with nobody in it, and in the store.
    let kept = await eventually(10, poll: .milliseconds(20)) {
      guard let (data, _) = try? await URLSession.shared.data(from: metrics) else { return false }
      var values: [String: Double] = [:]
      for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
        let parts = line.split(separator: " ")
        if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0])] = value }
      }
      return values["cowatch_rooms"] == 1 && values["cowatch_members"] == 0
        && values["cowatch_store_unwritten"] == 0
    }
    #expect(kept, "the empty room kept and stored")
    relay.terminate()
    #expect(await relay.exitStatus(within: 20) != nil)

    // Another night: every unkept room idle past a retention of 0 would be gone.
    relay = try serve(port: port)
    await relay.waitForLine(containing: ["listening on \(host):\(port)"])
    await relay.waitForLine(containing: ["1 restored"])
    let bob = try join("bob", port: port)
    defer { bob.terminate() }
    await bob.waitForLine(containing: [#""event":"welcome""#])
    bob.send("status")
    let status = try #require(await bob.waitForLine(containing: [#""event":"status""#]))
    #expect(status.contains(#""item":"harbour/s1e1""#), "\(status)")
    #expect(status.contains(#""group_position":100"#), "\(status)")
    bob.closeInput()
    #expect(await bob.exitStatus(within: 20) == 0)
  }
}
