import LinkConsent
import PlaybackCoordination
import Synchronization

/// This person's ``LinkConsent`` at run time: the player's wrapper (``ConsentingPlayer``)
/// asks it about every link the group plays, the front answers its questions, and it
/// performs the consent's effects — host lookups (``HostLookup``) and keeping the trusted
/// sites — feeding the results back.
public final class LinkGate: Sendable {
  /// What the front hears from the gate.
  public enum News: Hashable, Sendable {
    /// The links waiting for the person's answer now, oldest first.
    case questions([String])
    /// Something the person should know (the trusted sites could not be kept).
    case problem(String)
  }

  private let consent: Mutex<LinkConsent>
  private let lookup: @Sendable (String) async -> [[UInt8]]?
  private let save: @Sendable (TrustedSites) -> String?
  private let sink: AsyncStream<News>.Continuation
  /// The gate's news, for one reader (the front).
  public let news: AsyncStream<News>

  /// `lookup`: a host's addresses (``HostLookup/addresses(of:clock:timeout:)``);
  /// `save`: keeps the trusted sites, returning why not when it cannot.
  public init(
    consent: LinkConsent, lookup: @escaping @Sendable (String) async -> [[UInt8]]?,
    save: @escaping @Sendable (TrustedSites) -> String?
  ) {
    self.consent = Mutex(consent)
    self.lookup = lookup
    self.save = save
    (news, sink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(16))
  }

  deinit { sink.finish() }

  /// What to do with a link that arrived (to play now, or queued): the person is asked,
  /// or its host looked up, when that is what it waits for.
  public func verdict(for link: String) -> LinkConsent.Verdict {
    let (verdict, effects, questions) = consent.withLock { consent in
      let before = consent.questions
      let (verdict, effects) = consent.consider(link)
      return (verdict, effects, consent.questions == before ? nil : consent.questions)
    }
    perform(effects)
    if let questions { sink.yield(.questions(questions)) }
    return verdict
  }

  /// Links that arrived but are not played yet (the room's queue): asked about now, so
  /// that the answer is there when the group gets to them.
  public func consider(_ links: [String]) {
    for link in links { _ = verdict(for: link) }
  }

  /// The links waiting for an answer.
  public var questions: [String] { consent.withLock { $0.questions } }

  /// The person's answer about `link`.
  public func answer(_ answer: LinkAnswer, for link: String) {
    let (effects, questions) = consent.withLock { consent in
      (consent.answer(answer, for: link), consent.questions)
    }
    perform(effects)
    sink.yield(.questions(questions))
  }

  /// A link the person is about to start or queue themselves: nil when their player may
  /// open it, else why not (a link to their own network, unless they opted in).
  public func approveOwn(_ link: String) async -> String? {
    consent.withLock { $0.chose(link) }
    for _ in 0..<2 {
      switch verdict(for: link) {
      case .open: return nil
      case .refused(let why): return why
      case .asking: return "\(LinkItem.host(of: link)) waits for an answer"
      case .checking:
        let host = LinkItem.host(of: link)
        let addresses = await lookup(host)
        consent.withLock { $0.resolved(host: host, addresses: addresses) }
      }
    }
    return "the addresses of \(LinkItem.host(of: link)) could not be looked up"
  }

  /// Whether yt-dlp may read `link`'s page (its site is one the person trusts).
  public func allowsExtractor(_ link: String) -> Bool {
    consent.withLock { $0.sites.trusts(host: LinkItem.host(of: link)) }
  }

  private func perform(_ effects: [LinkConsent.Effect]) {
    for effect in effects {
      switch effect {
      case .resolve(let host):
        // Outside any simulation: links are for real players, on real time.
        Task {
          let addresses = await lookup(host)
          consent.withLock { $0.resolved(host: host, addresses: addresses) }
        }
      case .save(let sites):
        if let problem = save(sites) { sink.yield(.problem(problem)) }
      }
    }
  }
}
