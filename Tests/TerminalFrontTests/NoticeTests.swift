import Narration
import Testing

@Suite("Notices: their words and their weight")
struct NoticeTests {
  @Test("what is already so is information; what went wrong is an error")
  func weights() {
    #expect(Notice.unchanged("already at the end (5:00)").weight == .info)
    #expect(Notice.relaySilent.weight == .warning)
    #expect(
      Notice.missingFile(series: "Harbour", item: "Arrival", duration: 300).weight == .warning)
    #expect(Notice.gaveUpReconnecting.weight == .error)
    #expect(
      Notice.notSent(request: "play", why: "gave up reconnecting to the relay").weight == .error)
  }

  @Test("the words are the ones people have always read")
  func words() {
    #expect(
      Notice.notSent(request: "your chat message “hi”", why: "the connection was down too long")
        .description == "not sent: your chat message “hi” — the connection was down too long")
    #expect(
      Notice.missingFile(series: "Harbour", item: "Arrival", duration: 300).description
        == "you don't have Harbour · Arrival (5:00): stepping away until the group plays something you have"
    )
    #expect(
      Notice.messageHidden(from: "bob", .notSealed).description
        == "a message from bob was not shown: it was not sealed with the room's password")
    #expect(
      Notice.otherCut(series: "Harbour", item: "Fog", fileLength: 250, groupLength: 240)
        .description
        == "your file of Harbour · Fog is 4:10 long and the group's is 4:00: it may be another cut, and near its end you may part from the group"
    )
  }
}
