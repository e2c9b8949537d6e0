import LinkConsent
import Testing

@Suite("Trusted sites")
struct TrustedSitesTests {
  @Test("a site covers its subdomains and nothing that only ends like it")
  func matching() {
    let sites = TrustedSites(["youtube.com", "Example.org."])
    #expect(sites.trusts(host: "youtube.com"))
    #expect(sites.trusts(host: "www.youtube.com"))
    #expect(sites.trusts(host: "M.YouTube.com."))
    #expect(sites.trusts(host: "a.example.org"))
    #expect(!sites.trusts(host: "notyoutube.com"))
    #expect(!sites.trusts(host: "youtube.com.evil.example"))
    #expect(!sites.trusts(host: "127.0.0.1"))
    #expect(!sites.trusts(host: ""))
  }

  @Test("the default list has well-known video sites; adding drops www. and repeats nothing")
  func defaultsAndAdding() {
    var sites = TrustedSites()
    #expect(sites.trusts(host: "www.youtube.com"))
    #expect(sites.trusts(host: "vimeo.com"))
    #expect(!sites.trusts(host: "media.example.org"))
    let added = sites.add("www.media.example.org")
    #expect(added)
    #expect(sites.sites.last == "media.example.org")
    let again = sites.add("cdn.media.example.org")
    #expect(!again)
    let address = sites.add("127.0.0.1")
    #expect(!address, "an address is no site")
    #expect(TrustedSites.site(of: "www.example.org") == "example.org")
  }

  @Test("the file: comments and blank lines ignored, bad lines named and left out, written back")
  func file() {
    let (sites, problems) = TrustedSites.parse(
      """
      # mine
      example.org   # a comment
        media.example.net

      127.0.0.1
      not a site
      nodomain
      """)
    #expect(sites.sites == ["example.org", "media.example.net"])
    #expect(problems.count == 3)
    #expect(problems.first == "line 5: \"127.0.0.1\" is not a site's name")
    let again = TrustedSites.parse(sites.fileText)
    #expect(again.sites == sites)
    #expect(again.problems.isEmpty)
  }
}
