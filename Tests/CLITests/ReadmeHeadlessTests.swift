import Foundation
import TestSupport
import Testing

/// The README's headless example is what a script writer copies: it must be what the
/// program prints. The example is run as written (against a relay on loopback) and each
/// JSON line it shows must match a line the program printed, field by field: `...` elides
/// fields, and digits may differ (times, positions, clock readings).
@Suite("README.md's headless example", .timeLimit(.minutes(1)))
struct ReadmeHeadlessTests {
  struct Example {
    var arguments: [String]
    /// Each action, with the lines the README shows after it.
    var steps: [(action: String, shown: [String])]
  }

  static func example() throws -> Example {
    let readme = try String(
      contentsOf: CowatchProcess.repositoryRoot.appendingPathComponent("README.md"),
      encoding: .utf8)
    let start = try #require(readme.range(of: "### Headless: for scripts and other programs"))
    let block = readme[start.upperBound...]
    let open = try #require(block.range(of: "```\n"))
    let close = try #require(block[open.upperBound...].range(of: "```"))
    let lines = block[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init)
    let command = try #require(lines.first { $0.hasPrefix("$ cowatch ") })
    var arguments = command.dropFirst("$ cowatch ".count).split(separator: " ").map(String.init)
    var steps: [(String, [String])] = []
    for line in lines where !line.hasPrefix("$ ") {
      if line.hasPrefix("{") {
        steps[steps.count - 1].1.append(line)
      } else {
        steps.append((line, []))
      }
    }
    arguments.append("--no-tls")
    return Example(arguments: arguments, steps: steps)
  }

  /// The fields a shown line states (what `...` leaves out is not checked).
  static func fields(ofShown line: String) throws -> [String: Any] {
    let cleaned = line.replacingOccurrences(of: ",...,", with: ",")
      .replacingOccurrences(of: "...,", with: "").replacingOccurrences(of: ",...", with: "")
    return try #require(
      try JSONSerialization.jsonObject(with: Data(cleaned.utf8)) as? [String: Any], "\(line)")
  }

  /// Digits stand for any digits: times and positions differ from run to run.
  static func shape(_ value: Any) -> String {
    String(describing: value).map { $0.isNumber ? "#" : String($0) }.joined()
      .replacingOccurrences(of: "#.#", with: "#").replacingOccurrences(
        of: "#+", with: "#", options: .regularExpression)
  }

  static func matches(_ shown: [String: Any], _ printed: [String: Any]) -> Bool {
    shown.allSatisfy { key, value in
      guard let got = printed[key] else { return false }
      return shape(value) == shape(got)
    }
  }

  @Test("runs as written and prints what it shows")
  func exampleIsTrue() async throws {
    let example = try Self.example()
    #expect(example.steps.count >= 2)
    let (relay, port) = try await CowatchProcess.relay(["--store", "memory", "--no-tls"])
    defer { relay.terminate() }
    let arguments = example.arguments.map { $0 == "127.0.0.1:7700" ? "127.0.0.1:\(port)" : $0 }
    let bot = try CowatchProcess(arguments)
    defer { bot.terminate() }
    await bot.waitForLine(containing: [#""event":"welcome""#])
    for (action, shown) in example.steps {
      bot.send(action)
      for line in shown {
        let expected = try Self.fields(ofShown: line)
        let event = try #require(expected["event"] as? String)
        let found = await eventually(10, poll: .milliseconds(50)) {
          bot.output.contains { printed in
            guard
              let object = try? JSONSerialization.jsonObject(with: Data(printed.utf8))
                as? [String: Any], object["event"] as? String == event
            else { return false }
            return Self.matches(expected, object)
          }
        }
        #expect(
          found,
          "README shows \(line)\nbut the program printed:\n\(bot.output.filter { $0.contains("\"\(event)\"") }.joined(separator: "\n"))"
        )
      }
    }
    bot.closeInput()
  }
}
