import Testing

@testable import RouterPortMapping

@Suite struct PortMappingOutcomeTests {
  @Test(arguments: [
    ("10.1.2.3", true), ("172.16.0.1", true), ("172.31.255.255", true), ("172.32.0.1", false),
    ("192.168.1.1", true), ("100.64.0.1", true), ("100.127.255.254", true),
    ("100.128.0.1", false), ("127.0.0.1", true), ("169.254.9.9", true), ("0.0.0.0", true),
    ("44.1.1.1", false), ("8.8.8.8", false), ("not an address", true), ("1.2.3", true),
  ])
  func privateAddresses(address: String, isPrivate: Bool) {
    #expect(OutsideAddress.isPrivate(address) == isPrivate)
  }

  @Test(
    "the router's outside address goes into a link only written the one plain way",
    arguments: [
      ("203.0.113.5", true), ("8.8.8.8", true), ("0.0.0.0", true), ("255.255.255.255", true),
      ("203.0.113.5;rm -rf ~", false), ("+1.2.3.4", false), ("01.2.3.4", false),
      ("1.2.3.4.5", false), ("1.2.3", false), ("256.1.1.1", false), ("1..2.3", false),
      ("", false), ("１.２.３.４", false), ("1.2.3.4 ", false),
    ])
  func plainAddresses(address: String, isAddress: Bool) {
    #expect(OutsideAddress.isAddress(address) == isAddress)
  }

  @Test("the router's word is judged before anything is forwarded")
  func judged() {
    #expect(OutsideAddress.judge("44.1.1.1", method: .upnp) == .usable)
    #expect(OutsideAddress.judge("100.64.0.1", method: .upnp) == .privateOutside("100.64.0.1"))
    #expect(OutsideAddress.judge("0.0.0.0", method: .natpmp) == .privateOutside(nil))
    #expect(OutsideAddress.judge(nil, method: .upnp) == .privateOutside(nil))
    guard case .unusable(let why) = OutsideAddress.judge("6.6.6.6;id>x\n\"", method: .upnp) else {
      Issue.record("a bad answer was taken")
      return
    }
    #expect(why.hasPrefix("UPnP-IGD: the router's outside address is not one friends could use"))
    #expect(!why.contains("\n") && !why.contains("\""), "\(why)")
    guard case .unusable = OutsideAddress.judge("239.1.1.1", method: .upnp) else {
      Issue.record("a multicast address was taken")
      return
    }
  }

  @Test func multicastAndReservedAreNotReachable() {
    #expect(OutsideAddress.isUnreachable("224.0.0.251"))
    #expect(OutsideAddress.isUnreachable("255.255.255.255"))
    #expect(!OutsideAddress.isUnreachable("203.0.113.5"))
  }

  @Test func renewalIsHalfwayButNotTooOften() {
    let hour = MappedPort(
      method: .upnp, publicAddress: "44.1.1.1", publicPort: 7700, lifetime: 3600)
    #expect(hour.renewalDelay == .seconds(1800))
    var short = hour
    short.lifetime = 30
    #expect(short.renewalDelay == .seconds(15))
    short.lifetime = 1
    #expect(short.renewalDelay == .seconds(2))
    var forever = hour
    forever.lifetime = 0
    #expect(forever.renewalDelay == .seconds(3600))
  }

  @Test func theWordsSayWhatToDo() {
    let cgnat = PortMappingOutcome.privateOutside(address: "100.64.3.4", method: .upnp)
      .description(port: 7700)
    #expect(cgnat.contains("100.64.3.4"))
    #expect(cgnat.contains("carrier-grade NAT"))
    #expect(cgnat.contains("forward TCP port 7700"))
    let unknown = PortMappingOutcome.privateOutside(address: nil, method: .upnp)
      .description(port: 7700)
    #expect(unknown.contains("no public address of its own (carrier-grade NAT"))
    let none = PortMappingOutcome.noRouter(["UPnP: no router answered", "NAT-PMP: timed out"])
      .description(port: 7700)
    #expect(none.contains("cannot reach this room"))
    #expect(none.contains("UPnP: no router answered; NAT-PMP: timed out"))
    #expect(none.contains("docs/DEPLOY.md"))
    let mapped = PortMappingOutcome.mapped(
      MappedPort(method: .natpmp, publicAddress: "44.1.1.1", publicPort: 7701, lifetime: 3600)
    ).description(port: 7700)
    #expect(mapped.contains("44.1.1.1:7701"))
    #expect(mapped.contains("NAT-PMP"))
  }

  @Test func aRenewalIsNewsOnlyWhenWhereFriendsJoinChanges() {
    let mapped = MappedPort(
      method: .upnp, publicAddress: "44.1.1.1", publicPort: 7700, lifetime: 3600)
    var renewed = mapped
    renewed.lifetime = 3599
    #expect(PortMappingOutcome.mapped(mapped).reachesTheSame(as: .mapped(renewed)))
    var moved = mapped
    moved.publicAddress = "44.1.1.9"
    #expect(!PortMappingOutcome.mapped(mapped).reachesTheSame(as: .mapped(moved)))
    #expect(!PortMappingOutcome.mapped(mapped).reachesTheSame(as: .noRouter(["gone"])))
    #expect(PortMappingOutcome.noRouter(["a"]).reachesTheSame(as: .noRouter(["b"])))
  }
}
