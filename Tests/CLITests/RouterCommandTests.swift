import Foundation
import Testing

/// The home router for real: scripts/router.sh runs the host behind a NAT router namespace
/// with Debian's miniupnpd, and a friend in an "internet" namespace.
@Suite struct RouterCommandTests {
  static var hasNftables: Bool {
    ["/usr/sbin/nft", "/sbin/nft"].contains { FileManager.default.isExecutableFile(atPath: $0) }
  }
  static var hasRouterDaemon: Bool {
    FileManager.default.isExecutableFile(atPath: "/usr/sbin/miniupnpd") && hasNftables
  }

  @Test(
    "scripts/router.sh --smoke: UPnP and NAT-PMP mappings, the friend in by the link alone, the mapping gone after; a router that lies is not believed",
    .enabled(if: BenchSmokeTests.canMakeNamespaces, "needs root and iproute2 to make namespaces"),
    .enabled(if: hasRouterDaemon, "needs miniupnpd-nftables and nftables"))
  func homeRouter() async throws {
    let (status, text) = try await ScriptRun.run(
      "scripts/router.sh", ["--smoke"], bin: CowatchProcess.executable.deletingLastPathComponent(),
      within: 180)
    #expect(status == 0, "\(text.suffix(3000))")
    for check in [
      "without the mapping the friend cannot reach the host",
      "the friend joined through the invite link alone; the mapping was removed when the host left",
      "removed on end of input, SIGTERM and SIGHUP alike",
      "NAT-PMP alone: the friend joined, the mapping was removed",
      "a short lease was renewed",
      "with no router the host is told friends outside cannot reach the room",
      "behind carrier-grade NAT the host is told so",
      "an outside address with shell metacharacters is not taken and nothing is forwarded",
      "a router that takes only permanent mappings is not given one, and the host is told",
      "only the mapping the host made is removed", "all checks passed",
    ] {
      #expect(text.contains(check), "\(check): \(text.suffix(3000))")
    }
  }
}
