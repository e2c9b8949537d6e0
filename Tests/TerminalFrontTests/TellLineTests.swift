import Narration
import PlaybackCoordination
import Testing

@testable import TerminalFront

@Suite("Chat: /tell")
struct TellLineTests {
  static let names = ["bob", "carol", "mary ann", "smith, jo"]

  func completed(_ typed: String) -> String {
    var prompt = Prompt.chat(names: Self.names)
    for ch in typed { _ = prompt.handle(.character(ch)) }
    _ = prompt.handle(.tab)
    return prompt.input
  }

  @Test("tab after /tell completes a name, with or without @, after a comma, spaces and all")
  func completion() {
    #expect(completed("/tell c") == "/tell carol ")
    #expect(completed("/tell b") == "/tell bob ")
    #expect(completed("/tell @b") == "/tell @bob ")
    #expect(completed("/tell bob, c") == "/tell bob, carol ")
    #expect(completed("/tell bob,c") == "/tell bob,carol ")
    #expect(completed("/tell m") == "/tell mary ann ")
    #expect(completed("/tell mary a") == "/tell mary ann ")
    #expect(completed("/tell sm") == "/tell \"smith, jo\" ", "a name with a comma in quotes")
    #expect(completed("/tell \"sm") == "/tell \"smith, jo\" ")
    // In the text, a word is not a name to complete.
    #expect(completed("/tell bob hi c") == "/tell bob hi c")
    #expect(completed("hi @ca") == "hi @carol ")
  }

  @Test("/tell takes @names, spaces after commas, names with spaces, and names in quotes")
  func parsing() {
    func parse(_ line: String) -> TellLine { TellLine.parse(line, names: Self.names) }
    #expect(parse("/tell @bob check") == .tell(names: ["bob"], text: "check"))
    #expect(parse("/tell BOB check") == .tell(names: ["bob"], text: "check"))
    #expect(
      parse("/tell bob, carol spaced list") == .tell(names: ["bob", "carol"], text: "spaced list"))
    #expect(parse("/tell bob ,@carol hi") == .tell(names: ["bob", "carol"], text: "hi"))
    #expect(parse("/tell mary ann hello") == .tell(names: ["mary ann"], text: "hello"))
    #expect(parse("/tell \"mary ann\" hello") == .tell(names: ["mary ann"], text: "hello"))
    #expect(parse("/tell \"smith, jo\",bob hi") == .tell(names: ["smith, jo", "bob"], text: "hi"))
    #expect(parse("/tell mary hello") == .unknown("mary"))
    #expect(parse("/tell @zed hi") == .unknown("zed"))
    #expect(parse("/tell bob") == .usage)
    #expect(parse("/tell") == .usage)
    #expect(parse("/tell   ") == .usage)
    #expect(parse("/television") == .notATell)
    #expect(parse("hello /tell bob") == .notATell)
  }

  @Test("a /tell that cannot go says why and keeps what was typed in the chat line")
  func errorKeepsText() {
    var c = FrontController()
    let model = Fixtures.playing()
    func submit(_ line: String) -> [FrontAction] { chat(line, into: &c, model) }
    #expect(submit("/tell zed hi there") == [.localNotice("nobody called zed is in the room")])
    #expect(c.activePrompt?.kind == .chat)
    #expect(c.activePrompt?.input == "/tell zed hi there")
    _ = c.handle(key: .escape, model: model)
    #expect(submit("/tell bob") == [.localNotice(TellLine.usageText)])
    #expect(c.activePrompt?.input == "/tell bob")
    _ = c.handle(key: .escape, model: model)
    #expect(
      submit("/tell @bob, carol see you") == [
        .act(.tell(.to([Fixtures.bob, Fixtures.carol], "see you")))
      ])
    #expect(c.activePrompt == nil)
  }

  @Test(
    "a mistyped /command is never sent: it stays in the line with what it might have meant; // sends a slash"
  )
  func unknownCommand() {
    var c = FrontController()
    let model = Fixtures.playing()
    func submit(_ line: String) -> [FrontAction] { chat(line, into: &c, model) }
    let tel = submit("/tel bob carol keeps pausing lol")
    #expect(
      tel == [
        .localNotice(
          "/tel is not a command — did you mean /tell? (/me, /tell NAME …, /play LINK, /queue LINK; start with // to send a line that begins with /)"
        )
      ])
    #expect(c.activePrompt?.kind == .chat)
    #expect(c.activePrompt?.input == "/tel bob carol keeps pausing lol")
    _ = c.handle(key: .escape, model: model)
    #expect(submit("/shrug").first.map { "\($0)" }?.contains("/shrug is not a command (") == true)
    _ = c.handle(key: .escape, model: model)
    #expect(submit("/ME waves") == [.act(.say("/ME waves"))])
    #expect(submit("//tell is how you whisper") == [.act(.say("/tell is how you whisper"))])
    #expect(submit("/ shrug") == [.act(.say("/ shrug"))])
    #expect(submit(":/ oh no") == [.act(.say(":/ oh no"))])
    #expect(c.activePrompt == nil)
  }

  @Test("the nearest command is suggested only when it is near")
  func suggestions() {
    #expect(ChatCommands.unknownCommand(in: "/tel bob hi")?.contains("did you mean /tell?") == true)
    #expect(ChatCommands.unknownCommand(in: "/plya x")?.contains("did you mean /play?") == true)
    #expect(ChatCommands.unknownCommand(in: "/qeueu x")?.contains("did you mean /queue?") == true)
    #expect(ChatCommands.unknownCommand(in: "/television")?.contains("did you mean") == false)
    for fine in ["/tell bob hi", "/me waves", "/play https://a.b/c", "/queue x", "//x", "hi /tel"] {
      #expect(ChatCommands.unknownCommand(in: fine) == nil, "\(fine)")
    }
  }

  /// Types `line` into the chat line (opened with c) and presses Enter.
  private func chat(_ line: String, into c: inout FrontController, _ model: FrontModel)
    -> [FrontAction]
  {
    _ = c.handle(key: .character("c"), model: model)
    _ = c.handle(key: .paste(line), model: model)
    return c.handle(key: .enter, model: model)
  }
}
