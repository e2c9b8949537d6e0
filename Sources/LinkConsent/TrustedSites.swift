/// The sites a person lets others' links open on their machine without asking, and
/// whose pages yt-dlp may read (it runs site-specific extractors, and a generic one for
/// any page: a stranger's page is not parsed unless the person said so). As Syncplay's
/// trusted domains: a list with well-known video sites in it by default, kept in a file
/// the person may edit, and "always for this site" adds to it.
///
/// A site covers its subdomains: `youtube.com` trusts `www.youtube.com` and
/// `m.youtube.com`, not `youtube.com.example.org`.
public struct TrustedSites: Hashable, Sendable {
  public private(set) var sites: [String]

  /// The list a person starts with: sites that serve video to anyone and that yt-dlp
  /// reads with extractors of their own.
  public static let defaults = [
    "youtube.com", "youtu.be", "vimeo.com", "twitch.tv", "dailymotion.com", "archive.org",
    "peertube.tv", "bilibili.com", "nicovideo.jp", "soundcloud.com", "streamable.com",
    "wikimedia.org", "odysee.com", "rumble.com", "bandcamp.com",
  ]

  public init(_ sites: [String] = TrustedSites.defaults) {
    self.sites = []
    for site in sites { add(site) }
  }

  /// Whether links to `host` open without asking.
  public func trusts(host: String) -> Bool {
    guard let name = Self.normalized(host) else { return false }
    return sites.contains { name == $0 || name.hasSuffix("." + $0) }
  }

  /// Adds the site a link's host belongs to (its name without a leading `www.`);
  /// returns whether the list changed.
  @discardableResult
  public mutating func add(_ host: String) -> Bool {
    guard var site = Self.normalized(host) else { return false }
    if site.hasPrefix("www."), site.dropFirst(4).contains(".") { site.removeFirst(4) }
    guard !trusts(host: site) else { return false }
    sites.append(site)
    return true
  }

  /// The site `add` would add for `host`, as shown to the person.
  public static func site(of host: String) -> String {
    var sites = TrustedSites([])
    sites.add(host)
    return sites.sites.first ?? host
  }

  /// Reads the file's text: one site per line, `#` starts a comment. Lines that are not a
  /// site's name are returned as problems and left out (a hand-edited file must not stop
  /// anyone from watching).
  public static func parse(_ text: String) -> (sites: TrustedSites, problems: [String]) {
    var sites = TrustedSites([])
    var problems: [String] = []
    for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line =
        raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        .first.map(String.init)?.trimmingWhitespace ?? ""
      guard !line.isEmpty else { continue }
      if normalized(line) == nil {
        problems.append("line \(index + 1): \"\(line.prefix(60))\" is not a site's name")
      } else {
        sites.add(line)
      }
    }
    return (sites, problems)
  }

  /// The file's text, with a word on what it is.
  public var fileText: String {
    """
    # Sites whose links Cowatch opens without asking when someone else in a room plays or
    # queues them, and whose pages yt-dlp may read. One site a line; a site covers its
    # subdomains. Remove a line to be asked again; "always for this site" adds one.

    """ + sites.map { $0 + "\n" }.joined()
  }

  /// A site's name in lower case without a trailing dot, or nil when it is not one (an
  /// address, a name with no domain, characters no host name has).
  static func normalized(_ text: String) -> String? {
    var name = text.lowercased()
    while name.hasSuffix(".") { name.removeLast() }
    guard name.contains("."), name.count <= 253, !name.hasPrefix("."),
      !name.contains(".."),
      name.unicodeScalars.allSatisfy({
        ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "."
          || $0.value > 0x7f
      }),
      LinkDestination.literalAddress(name) == nil
    else { return nil }
    return name
  }
}

extension String {
  fileprivate var trimmingWhitespace: String {
    var scalars = Substring(self)
    while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
    while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
    return String(scalars)
  }
}
