import Foundation
import Testing

/// The room's queue from the command line, as a program driving headless mode uses it.
@Suite("The shared queue from the command line", .serialized)
struct QueueCommandTests {
  @Test(
    "queue add, move, remove and play: every participant's status lists the same queue, with who added what; bad places are one clear line"
  )
  func headlessQueue() async throws {
    let ann = try CowatchProcess(
      [
        "host", "--bind", "127.0.0.1", "--port", "0", "--name", "ann", "--headless",
        "--no-carry",
      ])
    defer { ann.terminate() }
    let invite = try #require(
      await ann.waitForLine(containing: [#""event":"invite""#]), "the host's invite")
    let link = String(try #require(invite.firstMatch(of: #/"link":"(cowatch:[^"]+)"/#)).1)
    let bob = try CowatchProcess(["join", link, "--name", "bob", "--headless", "--no-carry"])
    defer { bob.terminate() }
    await bob.waitForLine(containing: [#""event":"welcome""#])
    ann.send("start harbour/s1e1")
    bob.send("queue add harbour/s1e3")
    bob.send("queue add harbour/s1e2")
    await ann.waitForLine(containing: [#""kind":"queue-added""#, #""originator":"bob""#])
    await ann.waitForLine(containing: [#""kind":"queue-added""#, "added S1E2"])
    // ann puts the second first; bob sees the move.
    ann.send("queue move 2 1")
    await bob.waitForLine(containing: [#""kind":"queue-moved""#, #""originator":"ann""#])
    ann.send("status")
    let status = try #require(await ann.waitForLine(containing: [#""event":"status""#]))
    #expect(
      status.contains(
        #""queue":[{"place":1,"item":"harbour/s1e2","#), "\(status)")
    #expect(status.contains(#""added_by":"bob""#))
    // A place that is not there: one line, nothing changed.
    ann.send("queue remove 5")
    let refused = try #require(
      await ann.waitForLine(containing: [#""event":"error""#, #""input":"queue remove 5""#]))
    #expect(refused.contains("no place 5: the queue has 2 items"))
    bob.send("queue remove 1")
    await ann.waitForLine(containing: [#""kind":"queue-removed""#, #""originator":"bob""#])
    // Playing an entry now switches everyone: it asks first.
    ann.send("join")
    ann.send("queue play 1")
    await ann.waitForLine(containing: [#""event":"prompt""#, #""prompt":"confirm-switch""#])
    ann.send("confirm")
    await bob.waitForLine(containing: [#""kind":"queue-played""#, #""originator":"ann""#])
    bob.send("status")
    let after = try #require(await bob.waitForLine(containing: [#""event":"status""#]))
    #expect(after.contains(#""queue":[]"#), "\(after)")
    #expect(after.contains(#""item":"harbour/s1e3""#), "\(after)")
  }
}
