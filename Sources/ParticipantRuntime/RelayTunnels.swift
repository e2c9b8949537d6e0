import LendingEndpoint
import Logging
import PlaybackCoordination
import Synchronization
import WireProtocol

/// The relayed path of lending (docs/LENDING.md): a borrower that cannot reach its lender
/// asks the room's relay for a tunnel and reads through it; a lender the relay calls opens
/// the other half and serves it as a connection to its endpoint. The relay splices the two
/// and carries the members' own TLS, so the grant and the film stay between them.
public final class RelayTunnels: Sendable {
  /// Opens one half: connects to the relay (`relay`, nil: the usual one; `fingerprint`:
  /// the certificate the member's connection checked), sends the ticket `secret` and waits
  /// for the other half.
  public typealias Dial =
    @Sendable (_ secret: String, _ relay: RelayEndpoint?, _ fingerprint: String?) async throws ->
    LenderRoute.Opened

  private let dial: Dial
  private let logger: Logger
  /// Calls being answered now: a relay that calls too often is not answered beyond it.
  private let answering = Atomic<Int>(0)
  static let maximumAnswering = 16

  public init(dial: @escaping Dial, logger: Logger = Logger(label: "cowatch.lending")) {
    self.dial = dial
    self.logger = logger
  }

  /// The way to `lender` through the relay `client` is connected to: each connection asks
  /// for a ticket, then opens the borrower's half.
  public func route(to lender: ParticipantID, via client: ParticipantClient) -> LenderRoute {
    let dial = self.dial
    return LenderRoute(description: "through the room's relay") {
      let secret = try await client.openTunnel(to: lender).get()
      let (relay, fingerprint) = await client.tunnelRelay
      return try await dial(secret, relay, fingerprint)
    }
  }

  /// Answers the relay's calls to this member as a lender, until `client` stops: each call
  /// opens the lender's half and serves it from `endpoint`.
  public func answerCalls(of client: ParticipantClient, from endpoint: LenderEndpoint) async {
    let calls = await client.tunnelCalls()
    await withDiscardingTaskGroup { group in
      for await call in calls {
        guard answering.add(1, ordering: .relaxed).newValue <= Self.maximumAnswering else {
          answering.subtract(1, ordering: .relaxed)
          logger.notice("too many tunnels being opened at once; one call left unanswered")
          continue
        }
        group.addTask {
          defer { self.answering.subtract(1, ordering: .relaxed) }
          do {
            let (relay, fingerprint) = await client.tunnelRelay
            let stream = try await self.dial(call.secret, relay, fingerprint)
            self.logger.info("lending through the relay to \(call.borrower.rawValue)")
            await endpoint.adopt(stream)
          } catch {
            self.logger.notice("cannot open a tunnel for \(call.borrower.rawValue): \(error)")
          }
        }
      }
    }
  }
}
