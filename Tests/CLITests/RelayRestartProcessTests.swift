import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A headless line as JSON.
private func fields(_ line: String) -> [String: Any] {
  (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
}

@Suite("A relay killed and restarted with its room store", .serialized, .timeLimit(.minutes(2)))
struct RelayRestartProcessTests {
  @Test(
    "SIGKILL and a restart on the same port: the same members, paused to the millisecond, playing on where the timeline says, every message once"
  )
  func killAndRestart() async throws {
    let folder = NSTemporaryDirectory() + "cowatch-restart-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let file = folder + "/relay.sqlite"
    // Restarted on the same port: an address of its own, where nobody else takes the port.
    let host = CowatchProcess.ownLoopbackHost()
    var relay = try CowatchProcess([
      "serve", "--host", host, "--port", "0", "--store", file, "--metrics", "\(host):0",
    ])
    defer { relay.terminate() }
    let listening = try #require(await relay.waitForLine(containing: ["listening on \(host):"]))
    let port = try #require(listening.split(separator: ":").last.map(String.init))
    var metrics = try #require(await Self.metricsURL(of: relay))

    let ann = try CowatchProcess([
      "join", "\(host):\(port)", "--name", "ann", "--headless", "--sample-ms", "100",
      "--trust-new-relay",
    ])
    defer { ann.terminate() }
    let bob = try CowatchProcess([
      "join", "\(host):\(port)", "--name", "bob", "--headless", "--sample-ms", "100",
      "--trust-new-relay",
    ])
    defer { bob.terminate() }
    let annWelcome = try #require(await ann.waitForLine(containing: [#""event":"welcome""#]))
    let annID = try #require(fields(annWelcome)["participant"] as? String)
    let bobWelcome = try #require(await bob.waitForLine(containing: [#""event":"welcome""#]))
    let bobID = try #require(fields(bobWelcome)["participant"] as? String)
    ann.send("start harbour/s1e1")
    await bob.waitForLine(containing: [#""event":"session""#, #""phase":"waiting""#])
    bob.send("join")
    await ann.waitForLine(containing: [#""kind":"joined""#, #""originator":"bob""#])
    await bob.waitForLine(containing: [#""event":"sample""#, #""rate":1"#])
    ann.send("pause")
    let paused = try #require(
      await bob.waitForLine(after: 0, containing: [#""event":"state""#, #""state":"paused""#]))
    let pausedAt = try #require(fields(paused.line)["position"] as? Double)
    ann.send("say before the crash")
    await bob.waitForLine(containing: [#""event":"chat""#, "before the crash"])

    // 1. Paused, and a message written while the relay is down. The kill comes once the
    // pause is in the store (its metrics say nothing is left unwritten).
    #expect(await Self.everythingStored(metrics), "the pause reached the store")
    var marks = (ann.output.count, bob.output.count)
    await relay.killNow()
    ann.send("say while the relay was down")
    // Both see the relay gone (and try again) before it comes back.
    await ann.waitForLine(after: marks.0, containing: [#""event":"connection""#, "reconnecting"])
    await bob.waitForLine(after: marks.1, containing: [#""event":"connection""#, "reconnecting"])
    let (annMark, bobMark) = (ann.output.count, bob.output.count)
    relay = try CowatchProcess([
      "serve", "--host", host, "--port", port, "--store", file, "--metrics", "\(host):0",
    ])
    await relay.waitForLine(containing: ["listening on \(host):\(port)"])
    metrics = try #require(await Self.metricsURL(of: relay))
    await relay.waitForLine(containing: ["1 restored"])
    for (who, id, mark) in [(ann, annID, annMark), (bob, bobID, bobMark)] {
      let welcome = try #require(
        await who.waitForLine(
          after: mark, containing: [#""event":"welcome""#, #""relay_restarted":true"#]))
      #expect(fields(welcome.line)["participant"] as? String == id, "the same member")
      #expect(fields(welcome.line)["resumed"] as? Bool == true)
      #expect(welcome.line.contains("the relay restarted; back with the group"))
      let state = try #require(
        await who.waitForLine(after: welcome.index, containing: [#""event":"state""#]))
      #expect(fields(state.line)["state"] as? String == "paused")
      let position = try #require(fields(state.line)["position"] as? Double)
      #expect(abs(position - pausedAt) < 0.001, "paused at the same item time to the millisecond")
    }
    await bob.waitForLine(
      after: bobMark, containing: [#""event":"chat""#, "while the relay was down"])

    // 2. Playing: after the restart the group plays on where the timeline says it is now.
    ann.send("play")
    let playing = try #require(
      await bob.waitForLine(
        after: bobMark, containing: [#""event":"sample""#, #""rate":1"#, "group_position"]))
    let sample = fields(playing.line)
    let mono0 = try #require(sample["mono_ns"] as? Int)
    let group0 = try #require(sample["group_position"] as? Double)
    #expect(await Self.everythingStored(metrics), "the play reached the store")
    marks = (ann.output.count, bob.output.count)
    await relay.killNow()
    await ann.waitForLine(after: marks.0, containing: [#""event":"connection""#, "reconnecting"])
    await bob.waitForLine(after: marks.1, containing: [#""event":"connection""#, "reconnecting"])
    let (annMark2, bobMark2) = (ann.output.count, bob.output.count)
    relay = try CowatchProcess(["serve", "--host", host, "--port", port, "--store", file])
    await relay.waitForLine(containing: ["listening on \(host):\(port)"])
    for (who, id, mark) in [(ann, annID, annMark2), (bob, bobID, bobMark2)] {
      let welcome = try #require(
        await who.waitForLine(
          after: mark, containing: [#""event":"welcome""#, #""relay_restarted":true"#]))
      #expect(fields(welcome.line)["participant"] as? String == id)
      // The player follows the timeline: within 0.1 s of where it says, soon after.
      var inSync: Double?
      let deadline = Date().addingTimeInterval(10)
      var index = welcome.index
      while inSync == nil, Date() < deadline {
        guard
          let next = await who.waitForLine(
            after: index + 1, containing: [#""event":"sample""#, #""rate":1"#])
        else { break }
        index = next.index
        let s = fields(next.line)
        guard let mono = s["mono_ns"] as? Int, let position = s["position"] as? Double else {
          continue
        }
        let expected = group0 + Double(mono - mono0) / 1e9
        if abs(position - expected) < 0.1 { inSync = position - expected }
      }
      #expect(inSync != nil, "\(id) plays on where the timeline says")
    }
    #expect(bob.output.filter { $0.contains("before the crash") }.count == 1)
    #expect(bob.output.filter { $0.contains("while the relay was down") }.count == 1)
    ann.closeInput()
    bob.closeInput()
    // Leaving is quick; a suite loading both cores (CI) can make it seconds.
    for (name, p) in [("ann", ann), ("bob", bob)] {
      let status = await p.exitStatus(within: 30)
      #expect(status == 0, "\(name) exited with \(String(describing: status)): \(p.standardError)")
    }
  }

  @Test(
    "SIGTERM stops the relay cleanly: participants are told, what changed is written, the process exits 0"
  )
  func cleanStop() async throws {
    let folder = NSTemporaryDirectory() + "cowatch-stop-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let file = folder + "/relay.sqlite"
    let (relay, port) = try await CowatchProcess.relay(["--store", file, "--no-tls"])
    defer { relay.terminate() }
    let ann = try CowatchProcess([
      "join", "127.0.0.1:\(port)", "--name", "ann", "--headless", "--no-tls",
    ])
    defer { ann.terminate() }
    await ann.waitForLine(containing: [#""event":"welcome""#])
    ann.send("start harbour/s1e1")
    await ann.waitForLine(containing: [#""event":"session""#])
    kill(relay.processIdentifier, SIGTERM)
    #expect(await relay.exitStatus() == 0, "stderr: \(relay.standardError)")
    #expect(!relay.standardError.contains("Backtrac"))
    let told = await ann.waitForLine(containing: [#""event":"error""#, "shutting down"])
    #expect(told != nil, "ann: \(ann.output.suffix(6))")
    // What the relay held is in its file: a relay started on it has the room back.
    let again = try CowatchProcess([
      "serve", "--host", "127.0.0.1", "--port", "0", "--store", file, "--no-tls",
    ])
    defer { again.terminate() }
    #expect(await again.waitForLine(containing: ["1 restored"]) != nil)
    ann.closeInput()
  }

  /// Where a relay started with `--metrics HOST:0` serves them (it says so as it starts).
  static func metricsURL(of relay: CowatchProcess) async -> URL? {
    guard let line = await relay.waitForLine(containing: ["metrics at http://"]),
      let start = line.range(of: "http://")
    else { return nil }
    return URL(string: line[start.lowerBound...].trimmingCharacters(in: .whitespaces))
  }

  /// Waits (10 s at most) until the relay's metrics say that everything it applied is in
  /// its store: what a kill then loses is nothing.
  static func everythingStored(_ metrics: URL) async -> Bool {
    await eventually(10, poll: .milliseconds(10)) {
      guard let (data, _) = try? await URLSession.shared.data(from: metrics) else { return false }
      let gauge = String(decoding: data, as: UTF8.self).split(separator: "\n")
        .first { $0.hasPrefix("cowatch_store_unwritten ") }
      return gauge.flatMap({ Double($0.split(separator: " ")[1]) }) == 0
    }
  }
}
