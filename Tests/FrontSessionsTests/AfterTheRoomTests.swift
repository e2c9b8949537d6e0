import Media
import Participation
import PlaybackCoordination
import Testing

@testable import FrontSessions
@testable import TerminalFront

@Suite("After leaving the room for good (removed, the room closed, gave up)")
struct AfterTheRoomTests {
  /// ann watched with bob; bob (the owner) removed her.
  func removed() -> Driver {
    var d = Driver.watching()
    d.send(
      .client(
        .notice(.notSent(request: "a chat message", why: "the connection was down too long"))))
    let state = Fixtures.playing(sequence: 11)
    d.send(
      .client(
        .state(
          state,
          events: [
            Fixtures.change(11, by: Fixtures.bob, .removed(participant: Fixtures.ann, name: "ann"))
          ])))
    d.send(.client(.session(.invalidated(.removed("bob removed you from the room")))))
    d.send(.client(.connection(.disconnected)))
    d.send(.clientEnded)
    d.clearRequests()
    return d
  }

  @Test("the header gives the removal as the reason, not an older error")
  func reason() {
    let d = removed()
    let screen = d.screen()
    #expect(screen.contains("✕ disconnected: bob removed you from the room"), "\(screen)")
    #expect(!screen.contains("disconnected: not sent"))
  }

  @Test("no offer to watch together, and the group's keys say why they do nothing")
  func noOffers() {
    var d = removed()
    #expect(!d.screen().contains("Watch together?"))
    for key in [Key.character("j"), .character(" "), .character("c"), .character("o")] {
      d.press(key)
    }
    #expect(d.requests.isEmpty, "\(d.requests)")
    let screen = d.screen()
    #expect(screen.contains("not in the room any more"), "\(screen)")
    #expect(!screen.contains("the participant has stopped"))
  }

  @Test("picking an episode then plays it for this person only, without asking about others")
  func aloneStillWorks() {
    var d = removed()
    d.press(.character("e"))
    d.press(.enter)
    let screen = d.screen()
    #expect(!screen.contains("together with"), "\(screen)")
    #expect(d.requests.isEmpty, "nothing goes to a relay that is gone: \(d.requests)")
    #expect(d.playerCommands.contains { if case .load = $0 { true } else { false } })
  }

  @Test("q quits at once: there is nobody to end the session for")
  func quitAtOnce() {
    var d = removed()
    let effects = d.press(.character("q"))
    #expect(!d.screen().contains("End for everyone"))
    #expect(d.requests.isEmpty && d.clientStopped, "\(d.requests) \(effects)")
  }

  @Test(
    "quitting while the relay cannot be reached says the session goes on for the others, and offers no end it could not deliver"
  )
  func quitWhileReconnecting() {
    var d = Driver.watching()
    d.send(.client(.connection(.reconnecting)))
    d.clearRequests()
    d.press(.character("q"))
    let screen = d.screen()
    #expect(!screen.contains("End for everyone"), "\(screen)")
    #expect(screen.contains("can't be reached"), "\(screen)")
    #expect(screen.contains("you lost the connection"), "\(screen)")
    // Enter stays: the safe choice is selected.
    d.press(.enter)
    #expect(d.requests.isEmpty)
    d.press(.character("q"))
    d.press(.character("l"))
    #expect(d.requests.isEmpty && d.clientStopped, "\(d.requests)")
  }
}
