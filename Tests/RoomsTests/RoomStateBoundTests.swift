import Foundation
import PlaybackCoordination
import Testing
import WireProtocol

@testable import Rooms

@Suite("A room's state stays far below the welcome line limit")
struct RoomStateBoundTests {
  /// The welcome a participant must be able to read: a client takes lines of at most this.
  static let clientLineLimit = 1 << 20

  @Test(
    "a full room with the longest names, most suspensions and the largest series fits one welcome")
  func fullestRoomFits() throws {
    let configuration = RelayConfiguration()
    var r = RelayDriver(configuration)
    let codec = WireCodec()
    // The largest series one command line can carry: ids at the byte limit, and titles of
    // quotes, which JSON doubles.
    let idPad = String(repeating: "x", count: DisplayText.maximumIdentifierBytes - 5)
    var items: [ItemInfo] = []
    var series = SeriesInfo(id: "big", title: "", items: [])
    while true {
      let next = ItemInfo(
        id: ItemID(String(format: "%04d", items.count) + "/" + idPad),
        title: String(repeating: "\"", count: 40), duration: 60)
      let candidate = SeriesInfo(id: "big", title: "", items: items + [next])
      let line = codec.encode(
        ClientMessage.command(id: 1, .start(series: candidate, item: items.first?.id ?? next.id)))
      if line.count > configuration.maximumFrameBytes { break }
      items.append(next)
      series = candidate
    }
    #expect(items.count > 100)

    // Every member: a 32-character, 61-byte name, joined, with every suspension it may
    // hold, each 64 bytes of quotes.
    let members = configuration.maximumParticipantsPerRoom - 1
    for i in 0..<members {
      let number = UInt64(i + 1)
      r.hello(number, String(repeating: "é", count: 29) + String(format: "%03d", i))
      if i == 0 {
        r.send(.command(id: 1, .start(series: series, item: series.items[0].id)), from: number)
      } else {
        r.send(.command(id: 1, .join), from: number)
      }
      for k in 0..<DisplayText.maximumSuspensions {
        let reason = String(repeating: "\"", count: DisplayText.maximumReasonBytes - 1) + "\(k)"
        r.send(
          .command(id: UInt64(2 + k), .beginSuspension(SuspensionReason(reason))), from: number)
      }
      #expect(r.rejections(number).isEmpty, "\(r.rejections(number).prefix(2))")
    }
    let last = UInt64(members + 1)
    r.hello(last, "zoe")
    let welcome = try #require(r.welcome(last))
    #expect(welcome.state.participants.count == members + 1)
    #expect(welcome.state.participants[5].suspensions.count == DisplayText.maximumSuspensions)
    let size = codec.encode(ServerMessage.welcome(welcome)).count
    // About a fifth of the limit: the series is bounded by one inbound line (64 KiB),
    // each member by its name and suspensions.
    #expect(size < Self.clientLineLimit / 4, "welcome is \(size) bytes")
  }
}
