import Clocks
import Foundation
import TestSupport
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
    // mpv blocks every signal for a moment now and then (around starting a thread), so
    // one reading can catch it blocking; a process started with them blocked never reads
    // an empty mask. Read until it does (within two seconds).
    var blocked: [String] = []
    let unblocked = await eventually(2) {
      guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
      else {
        blocked.append("no /proc/\(pid)/status")
        return false
      }
      let mask = status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }
      blocked.append(String(mask ?? "no SigBlk line"))
      return mask?.hasSuffix("0000000000000000") == true
    }
    #expect(unblocked, "mpv's signal mask never read empty: \(Set(blocked).sorted())")
    kill(pid, SIGTERM)
    #expect(await eventually(5) { !mpv.isRunning }, "mpv still runs 5 s after SIGTERM")
    await mpv.stop()
  }
}
