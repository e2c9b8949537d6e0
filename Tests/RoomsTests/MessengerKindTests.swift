import Foundation
import PlaybackCoordination
import Testing
import WireProtocol

@testable import Rooms

@Suite("Messenger kinds")
struct MessengerKindTests {
  @Test(
    "a messenger kind is 1 to 64 bytes of safe text",
    arguments: ["", String(repeating: "k", count: 65), "chat\u{1B}[2J", "rtl\u{202E}"])
  func messageKinds(kind: String) {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.hello(2, "bob")
    r.send(.send(seq: 1, to: .all, kind: MessageKind(kind), body: "hi"), from: 1)
    #expect(r.rejections(1).map(\.0) == [1])
    r.send(.send(seq: 2, to: .all, kind: "chat", body: "hi"), from: 1)
    #expect(r.accepted(1).contains(2))
  }
}
