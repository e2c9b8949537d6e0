import Foundation
import Testing

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
}
