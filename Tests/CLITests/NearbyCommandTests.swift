import Foundation
import Testing

/// Rooms nearby between real processes on a real (virtual) LAN: scripts/nearby.sh makes two
/// network namespaces on one veth segment (with Avahi beside Cowatch when it is installed).
@Suite struct NearbyCommandTests {
  @Test(
    "scripts/nearby.sh --smoke: a host's room listed and joined from another namespace, beside Avahi",
    .enabled(if: BenchSmokeTests.canMakeNamespaces, "needs root and iproute2 to make namespaces"))
  func nearbyOnALAN() async throws {
    let (status, text) = try await ScriptRun.run(
      "scripts/nearby.sh", ["--smoke"], bin: CowatchProcess.executable.deletingLastPathComponent(),
      within: 120)
    #expect(status == 0, "\(text.suffix(3000))")
    for check in [
      "listed with its host and address; the --no-advertise host is not",
      "join --nearby refused an untrusted relay, then joined with --trust-new-relay",
      "a stranger's plain-TCP room is refused in words, with --fingerprint and without",
      "gone from the listing once its host left", "all checks passed",
    ] {
      #expect(text.contains(check), "\(check): \(text.suffix(3000))")
    }
    if FileManager.default.isExecutableFile(atPath: "/usr/sbin/avahi-daemon") {
      #expect(text.contains("Avahi still answers"), "\(text.suffix(3000))")
    }
  }
}
