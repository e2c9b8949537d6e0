import Foundation
import Testing

@Suite("Room passwords on the command line", .serialized)
struct RoomPasswordCommandTests {
  @Test(
    "--password-file and COWATCH_ROOM_PASSWORD let people in and chat; a wrong or missing password is one clear line"
  )
  func passwords() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-password-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("password").path
    try "correct horse battery\n".write(toFile: file, atomically: true, encoding: .utf8)

    let (relay, port) = try await CowatchProcess.relay(["--store", "memory"])
    defer { relay.terminate() }
    let address = "127.0.0.1:\(port)"

    let ann = try CowatchProcess(
      [
        "join", address, "--name", "ann", "--room", "movie-night", "--headless",
        "--trust-new-relay", "--password-file", file,
        // The cheapest derivation: this is about the command line, not scrypt's cost
        // (RoomKeysTests derives at the default one). The others use the room's.
        "--password-cost", "12",
      ],
      environment: ["COWATCH_ROOM_PASSWORD": nil])
    defer { ann.terminate() }
    await ann.waitForLine(containing: [#""event":"welcome""#])
    let bob = try CowatchProcess(
      [
        "join", address, "--name", "bob", "--room", "movie-night", "--headless",
        "--trust-new-relay",
      ],
      environment: ["COWATCH_ROOM_PASSWORD": "correct horse battery"])
    defer { bob.terminate() }
    await bob.waitForLine(containing: [#""event":"welcome""#])
    ann.send("say the twist is coming")
    await bob.waitForLine(containing: [#""event":"chat""#, #""from":"ann""#, "the twist is coming"])

    for (name, environment, message) in [
      ("eve", ["COWATCH_ROOM_PASSWORD": "correct horse"], "wrong password for room movie-night"),
      (
        "dan", ["COWATCH_ROOM_PASSWORD": nil],
        "room movie-night has a password: give it with --password-file FILE or COWATCH_ROOM_PASSWORD"
      ),
    ] as [(String, [String: String?], String)] {
      let refused = try CowatchProcess(
        [
          "join", address, "--name", name, "--room", "movie-night", "--headless",
          "--trust-new-relay",
        ],
        environment: environment)
      #expect(await refused.exitStatus(within: 20) == 1)
      let lines = refused.standardError.split(separator: "\n")
      #expect(lines.count == 1, "one line: \(refused.standardError)")
      #expect(lines.first?.contains(message) == true, "stderr was: \(refused.standardError)")
    }
    ann.closeInput()
    bob.closeInput()
    #expect(await ann.exitStatus() == 0)
    #expect(await bob.exitStatus() == 0)
  }
}
