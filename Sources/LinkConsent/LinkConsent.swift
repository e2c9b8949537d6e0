import PlaybackCoordination

/// What a person answered about a link someone else wants to play.
public enum LinkAnswer: Hashable, Sendable {
  /// This link, this time.
  case open
  /// This link, and any later one of its site, without asking (the site joins the
  /// person's ``TrustedSites``).
  case alwaysForSite
  /// Not this link: the player steps away from it, saying why.
  case notThisOne
}

/// Whether this person's player may open a link, decided on their machine for every link
/// that arrives — the relay's word that it is a link is not taken (a relay that lies could
/// send anything). Pure: the lookups of host names and the saving of the trusted sites are
/// effects for the runtime (`LinkGate`), whose answers come back as inputs.
///
/// A link opens when it is the person's own, or its site is trusted, or they said "open";
/// otherwise the front asks (a headless participant, with no one to ask, refuses and says
/// how to allow it). Links to this machine or its network are refused first unless the
/// person opted in, whatever else they said: by the host as written and by the addresses
/// the name resolves to.
public struct LinkConsent: Sendable {
  public struct Settings: Hashable, Sendable {
    /// Every link opens without asking (`--trust-links`).
    public var trustsEveryLink: Bool
    /// Links to this machine or its network open too (`--allow-local-links`).
    public var allowsLocalDestinations: Bool
    /// Someone is there to ask (the front); else a link of an untrusted site is refused.
    public var asks: Bool
    /// Where the trusted sites are kept, for the words that say how to add one.
    public var sitesFile: String

    public init(
      trustsEveryLink: Bool = false, allowsLocalDestinations: Bool = false, asks: Bool = true,
      sitesFile: String = "~/.config/cowatch/trusted-sites"
    ) {
      self.trustsEveryLink = trustsEveryLink
      self.allowsLocalDestinations = allowsLocalDestinations
      self.asks = asks
      self.sitesFile = sitesFile
    }
  }

  public enum Verdict: Hashable, Sendable {
    /// Open it; `extractor`: yt-dlp may read the page (the site is trusted).
    case open(extractor: Bool)
    /// The host's addresses are being looked up.
    case checking
    /// The person has been asked (``questions``).
    case asking
    /// Not opened, and why, in words.
    case refused(String)
  }

  public enum Effect: Hashable, Sendable {
    /// Look up the addresses of `host`; report with ``resolved(host:addresses:)``.
    case resolve(host: String)
    /// Keep the trusted sites (the person added one).
    case save(TrustedSites)
  }

  private enum Lookup: Hashable, Sendable {
    case pending
    case local(String)
    case fine
  }

  public let settings: Settings
  public private(set) var sites: TrustedSites
  /// Links waiting for the person's answer, oldest first.
  public private(set) var questions: [String] = []
  private var opened: [String] = []
  private var declined: [String] = []
  private var lookups: [String: Lookup] = [:]
  private var lookupOrder: [String] = []

  /// Bounds on what links from others can make this hold: each set keeps its newest.
  static let rememberedLinks = 256
  static let rememberedHosts = 256
  static let openQuestions = 8

  public init(settings: Settings = Settings(), sites: TrustedSites = TrustedSites()) {
    self.settings = settings
    self.sites = sites
  }

  /// What to do with `link` now, changing nothing.
  public func verdict(for link: String) -> Verdict {
    if let problem = LinkItem.problem(with: link) {
      return .refused("not a link to open: \(problem)")
    }
    let host = LinkItem.host(of: link)
    if !settings.allowsLocalDestinations {
      if let why = LinkDestination.localReason(host: host) { return .refused(Self.local(why)) }
      if LinkDestination.literalAddress(host) == nil {
        switch lookups[host] {
        case nil, .pending: return .checking
        case .local(let why): return .refused(Self.local(why))
        case .fine: break
        }
      }
    }
    if declined.contains(link) { return .refused("you chose not to open this link to \(host)") }
    let trusted = sites.trusts(host: host)
    if trusted || settings.trustsEveryLink || opened.contains(link) {
      return .open(extractor: trusted)
    }
    if settings.asks { return .asking }
    return .refused(
      "\(host) is not a site you trust: add \(TrustedSites.site(of: host)) to \(settings.sitesFile), or join with --trust-links"
    )
  }

  /// A link that arrived (to play now, or queued): what to do with it, asking the person
  /// or looking its host up when that is what it waits for.
  public mutating func consider(_ link: String) -> (Verdict, [Effect]) {
    let verdict = verdict(for: link)
    var effects: [Effect] = []
    switch verdict {
    case .checking:
      let host = LinkItem.host(of: link)
      if lookups[host] == nil {
        remember(host, .pending)
        effects.append(.resolve(host: host))
      }
    case .asking:
      if !questions.contains(link) {
        questions.append(link)
        if questions.count > Self.openQuestions {
          // The oldest goes unanswered: not opened, as "not this one" (a flood of links
          // cannot bury the person in questions).
          let dropped = questions.removeFirst()
          Self.add(dropped, to: &declined)
        }
      }
    case .open, .refused: break
    }
    return (verdict, effects)
  }

  /// The addresses `host` resolves to (nil: the lookup failed, as the player's would).
  public mutating func resolved(host: String, addresses: [[UInt8]]?) {
    let local = (addresses ?? []).lazy.compactMap(LinkDestination.localReason(address:)).first
    remember(host, local.map { .local("\($0), where \(host) leads") } ?? .fine)
  }

  /// The person's answer to the question about `link`.
  public mutating func answer(_ answer: LinkAnswer, for link: String) -> [Effect] {
    questions.removeAll { $0 == link }
    switch answer {
    case .open:
      declined.removeAll { $0 == link }
      Self.add(link, to: &opened)
      return []
    case .alwaysForSite:
      declined.removeAll { $0 == link }
      Self.add(link, to: &opened)
      return sites.add(LinkItem.host(of: link)) ? [.save(sites)] : []
    case .notThisOne:
      opened.removeAll { $0 == link }
      Self.add(link, to: &declined)
      return []
    }
  }

  /// A link the person started or queued themselves: theirs to open (not asked about).
  public mutating func chose(_ link: String) {
    questions.removeAll { $0 == link }
    declined.removeAll { $0 == link }
    Self.add(link, to: &opened)
  }

  private static func local(_ why: String) -> String {
    "\(why): links to your own machine or network open only with --allow-local-links"
  }

  private mutating func remember(_ host: String, _ lookup: Lookup) {
    if lookups.updateValue(lookup, forKey: host) == nil {
      lookupOrder.append(host)
      if lookupOrder.count > Self.rememberedHosts {
        lookups[lookupOrder.removeFirst()] = nil
      }
    }
  }

  private static func add(_ link: String, to list: inout [String]) {
    list.removeAll { $0 == link }
    list.append(link)
    if list.count > rememberedLinks { list.removeFirst(list.count - rememberedLinks) }
  }
}
