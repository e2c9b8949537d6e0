import Foundation
import Testing

/// Lending through the room's relay with real processes: scripts/lend-relayed.sh runs a
/// relay, ann (lends) and carol (mpv, no media) on three machines (network namespaces),
/// carol unable to reach ann.
@Suite struct LendRelayedCommandTests {
  @Test(
    "scripts/lend-relayed.sh: carol's mpv plays ann's copy through the relay, in step; a relay without --lend-relay-rate does not carry it; a host's relay does",
    .enabled(if: BenchSmokeTests.canMakeNamespaces, "needs root and iproute2 to make namespaces"),
    .enabled(if: RouterCommandTests.hasNftables, "needs nftables"),
    .enabled(if: MpvTools.available, "needs mpv and ffmpeg"))
  func lendRelayed() async throws {
    let (status, text) = try await ScriptRun.run(
      "scripts/lend-relayed.sh", [], bin: CowatchProcess.executable.deletingLastPathComponent(),
      within: 240)
    #expect(status == 0, "\(text.suffix(4000))")
    for check in [
      "carol plays ann's copy through the relay", "carol plays in step through the relay",
      "does not carry it; carol steps away saying why",
      "a host's relay carries ann's copy for its room", "all checks passed",
    ] {
      #expect(text.contains(check), "\(check): \(text.suffix(4000))")
    }
  }
}
