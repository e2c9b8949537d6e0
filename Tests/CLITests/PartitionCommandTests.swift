import Foundation
import Testing

/// A room's network cut in two, with real processes: scripts/partition.sh runs five
/// machines (network namespaces on one bridge) and cuts the host's side, the smaller, off.
@Suite struct PartitionCommandTests {
  @Test(
    "scripts/partition.sh: only the larger side goes on; the host's side refuses changes in words; healed, one room again, nothing lost or doubled",
    .enabled(if: BenchSmokeTests.canMakeNamespaces, "needs root and iproute2 to make namespaces"),
    .enabled(if: RouterCommandTests.hasNftables, "needs nftables"))
  func partition() async throws {
    let (status, text) = try await ScriptRun.run(
      "scripts/partition.sh", [], bin: CowatchProcess.executable.deletingLastPathComponent(),
      within: 240)
    #expect(status == 0, "\(text.suffix(4000))")
    for check in [
      "five machines watch together", "back with the group at a successor after",
      "the smaller side's change and chat were refused; the larger side paused and chatted",
      "one room again", "nothing lost or doubled", "all checks passed",
    ] {
      #expect(text.contains(check), "\(check): \(text.suffix(4000))")
    }
  }
}
