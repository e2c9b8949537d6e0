import LinkConsent
import Testing

@Suite("Consent to open others' links")
struct LinkConsentTests {
  static let film = "https://media.example.org/films/harbour.mkv"
  static let public8 = [[UInt8]([93, 184, 216, 34])]

  /// A consent whose lookup of `media.example.org` came back with a public address.
  static func looked(_ settings: LinkConsent.Settings = .init()) -> LinkConsent {
    var consent = LinkConsent(settings: settings)
    let seen1 = consent.consider(film)
    #expect(seen1 == (.checking, [.resolve(host: "media.example.org")]))
    consent.resolved(host: "media.example.org", addresses: public8)
    return consent
  }

  @Test("a link of a site not trusted is asked about once, and the answer holds")
  func asks() {
    var consent = Self.looked()
    let seen2 = consent.consider(Self.film).0
    #expect(seen2 == .asking)
    let seen3 = consent.consider(Self.film).0
    #expect(seen3 == .asking)
    #expect(consent.questions == [Self.film])
    #expect(consent.answer(.open, for: Self.film) == [])
    #expect(consent.questions.isEmpty)
    let seen4 = consent.consider(Self.film).0
    #expect(seen4 == .open(extractor: false), "yt-dlp only for trusted sites")
    // Another link of the same site is asked about again.
    let seen5 = consent.consider("https://media.example.org/other.mkv").0
    #expect(seen5 == .asking)
  }

  @Test(
    "always for this site: this link and later ones open, yt-dlp may read them, the list is kept")
  func always() {
    var consent = Self.looked()
    _ = consent.consider(Self.film)
    let effects = consent.answer(.alwaysForSite, for: Self.film)
    #expect(consent.sites.trusts(host: "media.example.org"))
    #expect(effects == [.save(consent.sites)])
    let seen6 = consent.consider(Self.film).0
    #expect(seen6 == .open(extractor: true))
    let seen7 = consent.consider("https://media.example.org/b.mkv").0
    #expect(seen7 == .open(extractor: true))
  }

  @Test("not this one: refused with the reason until the person chooses the link themselves")
  func declined() {
    var consent = Self.looked()
    _ = consent.consider(Self.film)
    _ = consent.answer(.notThisOne, for: Self.film)
    let refused = consent.consider(Self.film).0
    #expect(refused == .refused("you chose not to open this link to media.example.org"))
    #expect(consent.questions.isEmpty)
    consent.chose(Self.film)
    let seen8 = consent.consider(Self.film).0
    #expect(seen8 == .open(extractor: false))
  }

  @Test("a trusted site opens without asking; headless without --trust-links refuses saying how")
  func trustedAndHeadless() {
    var consent = LinkConsent()
    let seen9 = consent.consider("https://www.youtube.com/watch?v=x").0
    #expect(seen9 == .checking)
    consent.resolved(host: "www.youtube.com", addresses: Self.public8)
    let seen10 = consent.consider("https://www.youtube.com/watch?v=x").0
    #expect(seen10 == .open(extractor: true))

    var headless = Self.looked(
      .init(asks: false, sitesFile: "/home/a/.config/cowatch/trusted-sites"))
    guard case .refused(let why) = headless.consider(Self.film).0 else {
      Issue.record("not refused")
      return
    }
    #expect(why.contains("media.example.org is not a site you trust"))
    #expect(why.contains("/home/a/.config/cowatch/trusted-sites"))
    #expect(why.contains("--trust-links"))
    #expect(headless.questions.isEmpty)

    var trusting = Self.looked(.init(trustsEveryLink: true, asks: false))
    let seen11 = trusting.consider(Self.film).0
    #expect(seen11 == .open(extractor: false))
  }

  @Test(
    "links to this machine or its network are refused whatever was said, unless the person opted in",
    arguments: [
      "http://127.0.0.1:8080/a.mkv", "http://169.254.169.254/latest/meta-data/",
      "http://[::1]/a.mkv", "http://[fd00::1]:80/a", "http://2130706433/a", "http://localhost/a",
      "http://nas/a.mkv", "http://user@192.168.1.1/a",
    ])
  func local(link: String) {
    var consent = LinkConsent(settings: .init(trustsEveryLink: true))
    consent.chose(link)
    guard case .refused(let why) = consent.consider(link).0 else {
      Issue.record("\(link) not refused")
      return
    }
    #expect(
      why.hasSuffix("links to your own machine or network open only with --allow-local-links"))
    #expect(consent.questions.isEmpty)
    var opted = LinkConsent(settings: .init(allowsLocalDestinations: true))
    let seen12 = opted.consider(link).0
    #expect(seen12 == .asking)
  }

  @Test("a name that resolves to this machine or its network is refused as its address")
  func resolvedLocal() {
    var consent = LinkConsent(settings: .init(trustsEveryLink: true))
    let link = "https://rebind.example.net/a.mkv"
    let seen13 = consent.consider(link)
    #expect(seen13 == (.checking, [.resolve(host: "rebind.example.net")]))
    let seen14 = consent.consider(link)
    #expect(seen14 == (.checking, []), "looked up once")
    consent.resolved(host: "rebind.example.net", addresses: Self.public8 + [[10, 0, 0, 7]])
    let refused = consent.consider(link).0
    #expect(
      refused
        == .refused(
          "10.0.0.7 is a private address (your own network), where rebind.example.net leads: links to your own machine or network open only with --allow-local-links"
        ))
    // A failed lookup refuses nothing the player could reach.
    consent.resolved(host: "gone.example.net", addresses: nil)
    let seen15 = consent.consider("https://gone.example.net/a").0
    #expect(seen15 == .open(extractor: false))
  }

  @Test("what is not a link is refused, not opened: the relay's word is not taken")
  func notLinks() {
    var consent = LinkConsent(settings: .init(trustsEveryLink: true, allowsLocalDestinations: true))
    for text in ["file:///etc/passwd", "https://a b/c", "https://", "http://x.org/\u{1b}[2J"] {
      guard case .refused(let why) = consent.consider(text).0 else {
        Issue.record("\(text) not refused")
        continue
      }
      #expect(why.hasPrefix("not a link to open: "))
    }
  }

  @Test("a flood of links asks at most a few questions; the oldest unanswered is not opened")
  func flood() {
    var consent = LinkConsent(settings: .init(allowsLocalDestinations: true))
    let links = (0..<20).map { "https://site\($0).example.org/a.mkv" }
    for link in links { _ = consent.consider(link) }
    #expect(consent.questions == Array(links.suffix(8)))
    guard case .refused = consent.consider(links[0]).0 else {
      Issue.record("the dropped question's link was not refused")
      return
    }
  }
}
