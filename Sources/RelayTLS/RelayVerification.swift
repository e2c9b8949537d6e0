import Foundation
import NIOCore
import NIOSSL
import Synchronization
import X509

/// How a participant checks the relay it connects to over TLS (see ``RelayTrust``).
public struct RelayVerification: Sendable {
  /// `--fingerprint`: the only certificate accepted.
  public var pinned: String?
  /// Where relays trusted on first use are remembered; nil: nowhere (nothing is asked).
  public var knownRelays: KnownRelays?
  /// `--trust-new-relay`: trust (and remember) a relay not known yet without asking.
  public var trustNew: Bool
  /// Asks the person whether to trust an unknown relay's fingerprint (the front does,
  /// before it takes the screen); nil: nobody to ask (headless).
  public var ask: (@Sendable (_ endpoint: String, _ fingerprint: String) async -> Bool)?
  /// The client TLS context, made once: making one per connection (and loading the
  /// system's trust roots into it each time) made a thousand simultaneous joins take seconds.
  private let context = ClientContext()

  public init(
    pinned: String? = nil, knownRelays: KnownRelays? = KnownRelays(), trustNew: Bool = false,
    ask: (@Sendable (_ endpoint: String, _ fingerprint: String) async -> Bool)? = nil
  ) {
    self.pinned = pinned
    self.knownRelays = knownRelays
    self.trustNew = trustNew
    self.ask = ask
  }

  /// A client TLS handler for a relay at `host` (`endpoint` is how people name it, with
  /// the port). Why a refused certificate was refused is left in `refusal`.
  public func clientHandler(host: String, endpoint: String, refusal: Refusal) throws
    -> NIOSSLClientHandler
  {
    let context = try self.context.get()
    let isAddress = host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" }
    return try NIOSSLClientHandler(
      context: context, serverHostname: isAddress ? nil : host,
      customVerificationCallback: { chain, promise in
        let verification = self
        let complete = { @Sendable (verdict: String?) in
          if let reason = verdict {
            refusal.set(reason)
            promise.succeed(.failed)
          } else {
            promise.succeed(.certificateVerified)
          }
        }
        // A pinned certificate needs no CA: decided here, on the event loop, so that a
        // handshake never waits for a thread of the task pool (which a busy process may
        // keep for seconds, past the handshake's timeout).
        guard verification.pinned == nil else {
          complete(
            verification.check(
              chain, endpoint: endpoint, refusal: refusal, caVerified: false))
          return
        }
        Task {
          complete(
            await verification.check(chain, host: host, endpoint: endpoint, refusal: refusal))
        }
      })
  }

  /// nil when the chain is to be trusted; otherwise why not. A question about an unknown
  /// relay is left in `refusal` (required: a question nobody reads would be lost).
  func check(
    _ chain: [NIOSSLCertificate], host: String, endpoint: String, refusal: Refusal
  ) async -> String? {
    let caVerified = pinned == nil ? await Self.verifiesWithSystemRoots(chain, host: host) : false
    return check(chain, endpoint: endpoint, refusal: refusal, caVerified: caVerified)
  }

  /// ``check(_:host:endpoint:refusal:)`` once whether a CA vouches for the chain is known.
  func check(
    _ chain: [NIOSSLCertificate], endpoint: String, refusal: Refusal, caVerified: Bool
  ) -> String? {
    guard let leaf = chain.first, let der = try? leaf.toDERBytes() else {
      return "the relay at \(endpoint) presented no certificate"
    }
    let presented = RelayFingerprint.of(der: der)
    let known = knownRelays?.fingerprint(for: endpoint)
    switch RelayTrust.decide(
      endpoint: endpoint, presented: presented, pinned: pinned, caVerified: caVerified,
      known: known, trustNew: trustNew, canAsk: ask != nil && knownRelays != nil,
      knownRelaysPath: knownRelays?.path)
    {
    case .trust:
      refusal.trusted(presented)
      return nil
    case .trustAndRemember:
      try? knownRelays?.remember(presented, for: endpoint)
      refusal.trusted(presented)
      return nil
    case .ask:
      // Not asked here: the relay waits for a hello only a few seconds, and a person reads
      // the fingerprint as long as they like. The handshake is given up with the question
      // left in `refusal`; the transport asks it (``answer(_:)``) and connects again.
      refusal.ask(Question(endpoint: endpoint, fingerprint: presented))
      return "asking whether to trust the relay at \(endpoint)"
    case .refuse(let reason):
      return reason
    }
  }

  /// Whether a CA among the system's trust roots vouches for the chain, for `host`.
  static func verifiesWithSystemRoots(_ chain: [NIOSSLCertificate], host: String) async -> Bool {
    let certificates = chain.compactMap { certificate -> Certificate? in
      guard let der = try? certificate.toDERBytes() else { return nil }
      return try? Certificate(derEncoded: der)
    }
    guard let leaf = certificates.first else { return false }
    let isAddress = host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" }
    var verifier = Verifier(rootCertificates: CertificateStore.systemTrustRoots) {
      RFC5280Policy()
      ServerIdentityPolicy(
        serverHostname: isAddress ? nil : host, serverIP: isAddress ? host : nil)
    }
    let result = await verifier.validate(
      leaf: leaf, intermediates: CertificateStore(Array(certificates.dropFirst())))
    if case .validCertificate = result { return true }
    return false
  }

  /// One client context for every connection made with these settings.
  final class ClientContext: Sendable {
    private let made = Mutex<NIOSSLContext?>(nil)

    func get() throws -> NIOSSLContext {
      try made.withLock { made in
        if let made { return made }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        // Every check is ours (the callback replaces BoringSSL's whole verification; a
        // self-signed relay is the usual case, not an error). It is only called when peer
        // verification is on, hence not `.none`; no trust roots are loaded for it (the
        // system's are read by the verifier when a CA is to vouch).
        configuration.certificateVerification = .noHostnameVerification
        configuration.trustRoots = .certificates([])
        configuration.shutdownTimeout = RelayIdentity.shutdownTimeout
        let context = try NIOSSLContext(configuration: configuration)
        made = context
        return context
      }
    }
  }

  /// Why the last certificate was refused, shared between the handshake (which refuses)
  /// and the connect call (which reports it).
  public final class Refusal: Sendable {
    private let reason = Mutex<String?>(nil)
    private let question = Mutex<Question?>(nil)
    private let accepted = Mutex<String?>(nil)
    public init() {}
    func trusted(_ fingerprint: String) { accepted.withLock { $0 = fingerprint } }
    /// The fingerprint of the certificate that was trusted, once the handshake got that far.
    public var trustedFingerprint: String? { accepted.withLock { $0 } }
    public func set(_ text: String) { reason.withLock { $0 = text } }
    public var text: String? { reason.withLock { $0 } }
    func ask(_ asked: Question) { question.withLock { $0 = asked } }
    /// The question about an unknown relay that ended the handshake, if one did.
    public var pendingQuestion: Question? { question.withLock { $0 } }
  }

  /// Whether to trust the relay at `endpoint`, which presented `fingerprint`.
  public struct Question: Hashable, Sendable {
    public var endpoint: String
    public var fingerprint: String
  }

  /// Asks the person `question` (with no time limit: no connection is held open meanwhile)
  /// and remembers the relay when they trust it; nil then, otherwise why not.
  public func answer(_ question: Question) async -> String? {
    guard let ask, await ask(question.endpoint, question.fingerprint) else {
      return
        "you did not trust the relay at \(question.endpoint) (\(RelayFingerprint.shown(question.fingerprint)))"
    }
    do {
      try knownRelays?.remember(question.fingerprint, for: question.endpoint)
    } catch {
      return "cannot remember the relay: \(error.description)"
    }
    return nil
  }
}
