import Clocks
import Foundation
import Testing

@testable import MpvPlayer

@Suite(
  "mpv started by Cowatch answers signals as mpv started by hand", .enabled(if: RealMpv.available))
struct MpvSignalTests {
  @Test("a plain kill (SIGTERM) stops it, though it was started from a thread that blocks signals")
  func terminates() async throws {
    let mpv = try await MpvPlayer.launch(
      arguments: ["--vo=null", "--ao=null"], resolver: { _ in nil }, clock: MonotonicClock())
    let pid = mpv.processID
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    let blocked = status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }
    #expect(blocked?.hasSuffix("0000000000000000") == true, "\(blocked ?? "")")
    kill(pid, SIGTERM)
    let deadline = Date().addingTimeInterval(5)
    while mpv.isRunning, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
    #expect(!mpv.isRunning, "mpv still runs 5 s after SIGTERM")
    await mpv.stop()
  }
}
