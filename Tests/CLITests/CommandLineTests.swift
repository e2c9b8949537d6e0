import Foundation
import SyncplayHarness
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("The cowatch command", .serialized)
struct CommandLineTests {
  @Test("two headless participants drive each other through a real relay on loopback")
  func twoHeadlessParticipants() async throws {
    let (relay, port) = try await CowatchProcess.relay(["--store", "memory"])
    defer { relay.terminate() }

    let ann = try CowatchProcess([
      "join", "127.0.0.1:\(port)", "--name", "ann", "--headless", "--sample-ms", "200",
      "--trust-new-relay",
    ])
    defer { ann.terminate() }
    let bob = try CowatchProcess([
      "join", "127.0.0.1:\(port)", "--name", "bob", "--headless", "--trust-new-relay",
    ])
    defer { bob.terminate() }
    await ann.waitForLine(containing: [#""event":"welcome""#])
    await bob.waitForLine(containing: [#""event":"welcome""#])

    ann.send("start harbour/s1e1")
    await bob.waitForLine(containing: [#""event":"session""#, #""phase":"waiting""#])
    bob.send("join")
    await ann.waitForLine(containing: [#""kind":"joined""#, #""originator":"bob""#])
    await ann.waitForLine(containing: [
      #""event":"sample""#, #""item":"harbour/s1e1""#, #""rate":1"#,
    ])

    ann.send("pause")
    let paused = await bob.waitForLine(containing: [#""kind":"paused""#, #""originator":"ann""#])
    #expect(paused?.contains("ann paused at 0:0") == true)
    bob.send("seek 1:00")
    await ann.waitForLine(containing: [
      #""kind":"seeked""#, #""originator":"bob""#, "bob jumped to 1:00",
    ])
    bob.send("teleport now")
    await bob.waitForLine(containing: [#""event":"error""#, "unknown action"])
    bob.send("status")
    await bob.waitForLine(containing: [#""event":"status""#, #""position":60"#])
    ann.send("say hello bob")
    await bob.waitForLine(containing: [#""event":"chat""#, #""from":"ann""#, "hello bob"])

    ann.closeInput()
    bob.closeInput()
    #expect(await ann.exitStatus() == 0)
    #expect(await bob.exitStatus() == 0)
  }

  @Test("serve --metrics: a scraper reads the relay's metrics over HTTP")
  func metrics() async throws {
    let relay = try CowatchProcess([
      "serve", "--host", "127.0.0.1", "--port", "0", "--no-tls", "--store", "memory",
      "--metrics", "127.0.0.1:0",
    ])
    defer { relay.terminate() }
    let line = try #require(await relay.waitForLine(containing: ["metrics at http://127.0.0.1:"]))
    let address = try #require(line.firstMatch(of: #/(http://127\.0\.0\.1:\d+/metrics)/#)).1
    let url = try #require(URL(string: String(address)))
    let (data, _) = try await URLSession.shared.data(from: url)
    let body = String(decoding: data, as: UTF8.self)
    #expect(body.contains("# TYPE cowatch_connections gauge"), "\(body)")
    // A fresh relay with a store of its own: nothing in it yet (gauges read "0.0").
    let rooms = body.split(separator: "\n").first { $0.hasPrefix("cowatch_rooms ") }
    #expect(rooms.flatMap { Double($0.split(separator: " ")[1]) } == 0, "\(body)")
    #expect(body.contains("cowatch_store_unwritten 0"), "nothing waits for the store: \(body)")
  }

  @Test("an unreachable relay is one line on stderr and a non-zero exit")
  func unreachable() async throws {
    let join = try CowatchProcess(["join", "127.0.0.1:1", "--name", "ann", "--headless"])
    let status = await join.exitStatus()
    #expect(status == 1)
    let lines = join.standardError.split(separator: "\n")
    #expect(lines.count == 1)
    #expect(lines.first?.contains("cannot reach the relay at 127.0.0.1:1") == true)
  }

  @Test(
    "bad addresses and flags are one clear line and a non-zero exit",
    arguments: [
      (["join", "no such host:77", "--name", "ann", "--headless"], "bad relay address"),
      (["join", "127.0.0.1:99999", "--name", "ann", "--headless"], "bad relay address"),
      (
        ["join", "cowatch://lobby@127.0.0.1:7700/fp=short", "--name", "ann", "--headless"],
        "not a whole Cowatch link: its fingerprint is cut short or mistyped"
      ),
      (
        [
          "join", "cowatch://lobby@127.0.0.1:7700/plain", "--name", "a", "--room", "attic",
          "--headless",
        ],
        "the link is for room lobby, not attic"
      ),
      (["serve", "--frobnicate"], "Unknown option"),
      (["serve", "--frobnicate"], "(see cowatch serve --help)"),
      // A mistyped flag is named, not the one it was meant to be said missing.
      (["host", "--nmae", "ann"], "Unknown option '--nmae' (did you mean '--name'?)"),
      (
        ["join", "127.0.0.1", "--name", "x", "--headles"],
        "Unknown option '--headles' (did you mean '--headless'?)"
      ),
      (
        ["join", "127.0.0.1:1", "--name", "x", "--headless", "--mpv-args", "--fs"],
        "--mpv-args only applies with --player mpv"
      ),
      (
        ["join", "127.0.0.1:1", "--name", "x", "--headless", "--osd", "changes"],
        "--osd only applies with --player mpv"
      ),
      (
        [
          "join", "127.0.0.1:1", "--name", "x", "--headless", "--player", "mpv", "--media", "/tmp",
          "--osd", "sometimes",
        ],
        "--osd must be chat, changes or none, not sometimes"
      ),
      (["serve", "--heartbeat-timeout", "-1"], "--heartbeat-timeout must be positive"),
      (["serve", "--port", "-1"], "--port must be 0–65535"),
      (["serve", "--keep-rooms", "--max-kept-rooms", "0"], "--keep-rooms keeps nothing"),
      (["serve", "--max-kept-rooms-per-address", "0"], "--max-kept-rooms-per-address 1–"),
      (["join", "127.0.0.1", "--headless"], "Missing expected argument '--name <name>'"),
      (["demo", "--speed", "-3"], "speed"),
      (
        ["join", "127.0.0.1:1", "--name", "x", "--headless", "--password-cost", "11"],
        "--password-cost must be 12–18"
      ),
      (
        ["serve", "--store", "memory", "--advertise", "relay.example:7700"],
        "--advertise only applies with a PostgreSQL store"
      ),
      (
        ["serve", "--host", "0.0.0.0", "--store", "postgres://cowatch@127.0.0.1:1/postgres"],
        "--advertise HOST:PORT"
      ),
      (
        ["serve", "--store", "postgres://cowatch@127.0.0.1:1/postgres", "--advertise", "relay"],
        "--advertise must be HOST:PORT"
      ),
      (
        ["serve", "--store", "postgres://cowatch@127.0.0.1:1/postgres", "--lease", "0"],
        "--lease must be 0.2–600 seconds"
      ),
      (["serve", "--port", "7700", "--syncplay-port", "7700"], "--syncplay-port must differ"),
      (["serve", "--metrics", "9470"], "--metrics must be HOST:PORT"),
      (["serve", "--advertise-nearby"], "--advertise-nearby needs --host beyond loopback"),
      (
        ["join", "--name", "x", "--headless"],
        "an invite link (cowatch://…), a relay's HOST[:PORT], or --nearby"
      ),
      (["join", "--nearby", "movie night", "--name", "x", "--headless"], "must be a room's name"),
      // A fingerprint cannot be checked over plain TCP: a /plain link with one is refused.
      (
        [
          "join", "cowatch://lobby@127.0.0.1:1/plain", "--name", "x", "--headless",
          "--fingerprint", "SHA256:" + String(repeating: "A", count: 43) + "=",
        ],
        "so --fingerprint cannot be checked"
      ),
      (["nearby", "--wait", "0"], "--wait must be 0.1–3600 seconds"),
      (["serve", "--syncplay-port", "70000"], "--syncplay-port must be 0–65535"),
      // A negative number is a number (said wrong as such), not a flag named 5.
      (["serve", "--store-retention", "-5"], "--store-retention must be a number of seconds"),
      (
        ["join", "127.0.0.1:1", "--name", "x", "--headless", "--sample-ms", "-5"],
        "--sample-ms must be 0 or more"
      ),
    ])
  func badInvocations(arguments: [String], message: String) async throws {
    let p = try CowatchProcess(arguments)
    let status = await p.exitStatus()
    #expect(status != 0)
    #expect(p.standardError.contains(message), "stderr was: \(p.standardError)")
    #expect(!p.standardError.contains("Backtrac"), "no stack traces")
    #expect(p.standardError.split(separator: "\n").count == 1, "one line: \(p.standardError)")
  }

  @Test("serve --syncplay-port answers a Syncplay client's Hello with Syncplay's own")
  func syncplayPort() async throws {
    let (relay, _) = try await CowatchProcess.relay([
      "--store", "memory", "--no-tls", "--syncplay-port", "0",
    ])
    defer { relay.terminate() }
    let line = await relay.waitForLine(containing: ["Syncplay clients accepted on 127.0.0.1:"])
    let port = try #require(
      line?.split(separator: " ").first { $0.hasPrefix("127.0.0.1:") }?.split(separator: ":").last
        .flatMap { Int($0) })
    let answer = try SyncplayLine.exchange(
      port: port,
      #"{"Hello": {"username": "sam", "room": {"name": "lobby"}, "version": "1.2.255", "realversion": "1.6.9"}}"#
    )
    #expect(answer.contains(#""Hello""#) && answer.contains(#""username":"sam""#), "\(answer)")
  }

  @Test("the front's log file keeps the person's name as written (non-ASCII letters, emoji)")
  func logFileName() async throws {
    let p = try CowatchProcess(
      ["join", "127.0.0.1:1", "--name", "雪🙂 zoë"], environment: ["TERM": "dumb"])
    #expect(await p.exitStatus() != 0, "TERM=dumb: refused")
    let path = CowatchProcess.runDirectory + "/state/cowatch/cowatch-雪🙂_zoë.log"
    #expect(FileManager.default.fileExists(atPath: path), "\(path)")
  }

  @Test("--help lists the subcommands and --version prints one")
  func help() async throws {
    let p = try CowatchProcess(["--help"])
    #expect(await p.exitStatus() == 0)
    let text = p.output.joined(separator: "\n")
    for sub in ["serve", "host", "join", "nearby", "demo"] { #expect(text.contains(sub)) }
    let v = try CowatchProcess(["--version"])
    #expect(await v.exitStatus() == 0)
    #expect(v.output.first?.isEmpty == false)
  }
}
