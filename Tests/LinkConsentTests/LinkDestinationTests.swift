import LinkConsent
import Testing

@Suite("Where a link leads")
struct LinkDestinationTests {
  @Test(
    "this machine, its network and the addresses that spell them another way are local",
    arguments: [
      "127.0.0.1", "127.1", "2130706433", "0x7f000001", "0177.0.0.1", "localhost", "LOCALHOST.",
      "app.localhost", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
      "100.64.0.1", "0.0.0.0", "224.0.0.251", "255.255.255.255", "::1", "::", "fe80::1",
      "fe80::1%eth0", "fd00::1", "fc12::3", "::ffff:127.0.0.1", "::ffff:192.168.0.1", "ff02::fb",
      "nas", "printer.local", "router.lan", "box.home.arpa", "db.internal",
    ])
  func local(host: String) {
    #expect(LinkDestination.localReason(host: host) != nil, "\(host)")
  }

  @Test(
    "sites on the internet are not",
    arguments: [
      "www.youtube.com", "example.org", "8.8.8.8", "172.32.0.1", "192.169.0.1", "100.128.0.1",
      "2001:4860:4860::8888", "::ffff:8.8.8.8", "bad.cafe", "face.com", "1e100.net",
    ])
  func internet(host: String) {
    #expect(LinkDestination.localReason(host: host) == nil, "\(host)")
  }

  @Test("the words name the address as people write it")
  func words() {
    #expect(LinkDestination.localReason(host: "2130706433") == "127.0.0.1 is this machine")
    #expect(
      LinkDestination.localReason(host: "169.254.169.254")?.hasPrefix(
        "169.254.169.254 is a link-local address") == true)
    #expect(LinkDestination.localReason(host: "fd00::1")?.hasPrefix("fd00::1 is a private") == true)
    #expect(
      LinkDestination.localReason(address: [0xfe, 0x80] + Array(repeating: 0, count: 13) + [1])?
        .hasPrefix("fe80::1") == true)
  }
}
