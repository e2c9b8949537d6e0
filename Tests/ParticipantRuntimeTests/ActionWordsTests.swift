import HeadlessFront
import PlaybackCoordination
import Testing

/// The words of headless mode and demo scripts both ways: what a line says is the action,
/// and the action written back reads as the same action.
@Suite("Actions in words")
struct ActionWordsTests {
  @Test(
    "every action a line gives is written back as a line that gives it again",
    arguments: [
      "start harbour/s1e1", "join", "decline", "play", "pause", "seek 12:30", "seek +10",
      "seek -1:00", "rate 1.5", "rate +0.25", "next", "previous", "switch harbour/s1e3", "confirm",
      "cancel",
      "suspend interrupted", "resume", "resume-at 1:05", "autoadvance on", "say hello there",
      "tell bob psst", "leave", "end", "catalog", "status", "lock", "unlock", "remove bob",
      "control owner", "owner bob", "restart-player", "continue", "queue add harbour/s1e2",
      "queue remove 2",
      "queue move 3 1", "queue clear", "queue play 1", "offset 200", "lend on", "lend off", "lend",
      "ready-check", "ready", "not-ready", "ready-toggle", "start-anyway", "cancel-check",
      "start-when-ready on", "start-when-ready off", "keep-room on", "keep-room off",
      "react 😂", "react what a twist", "react ❤️",
    ])
  func roundTrip(line: String) throws {
    let action = try ParticipantAction.parse(line)
    #expect(try ParticipantAction.parse(action.words) == action, "\(line) → \(action.words)")
  }

  @Test("a switch takes on or off and says so; lend alone is the other of the two")
  func onOff() throws {
    for word in ["autoadvance", "start-when-ready", "keep-room", "lend"] {
      #expect(
        throws: ActionParseError.badArgument(word: word, argument: "maybe", expected: "on or off")
      ) {
        try ParticipantAction.parse("\(word) maybe")
      }
    }
    for word in ["autoadvance", "start-when-ready", "keep-room"] {
      #expect(throws: ActionParseError.missingArgument(word: word, expected: "on or off")) {
        try ParticipantAction.parse(word)
      }
    }
    #expect(try ParticipantAction.parse("lend") == .lend(nil))
    #expect(try ParticipantAction.parse("keep-room ON") == .keepRoom(true))
  }

  @Test("react takes an emoji or a few words, and says what it wants when given nothing")
  func react() throws {
    #expect(try ParticipantAction.parse("react 😂") == .react("😂"))
    #expect(try ParticipantAction.parse("react what a twist") == .react("what a twist"))
    #expect(throws: (any Error).self) { try ParticipantAction.parse("react") }
  }
}
