import Clocks
import PlaybackCoordination
import Transports
import WireProtocol

/// The relay called this member, as a lender: `borrower` asked for a tunnel to it; the
/// lender opens its half with `secret`.
public struct TunnelCall: Sendable, Hashable {
  public var secret: String
  public var borrower: ParticipantID
}

/// Why the relay gave no tunnel (its words, or the participant's own: not connected, no
/// answer in time).
public struct TunnelRefusal: Error, Sendable, Hashable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// Tunnels through the relay for lent copies (docs/LENDING.md): asking for one, and
/// hearing the relay's calls. They ride on the member's connection but are not room
/// state: a ticket is good for seconds, so nothing is resent after a reconnection.
extension ParticipantClient {
  /// Calls from the relay to this member as a lender, from now on; at most
  /// ``maximumWaitingCalls`` wait to be read (a ticket lives seconds: older ones go).
  public func tunnelCalls() -> AsyncStream<TunnelCall> {
    let (stream, continuation) = AsyncStream<TunnelCall>.makeStream(
      bufferingPolicy: .bufferingNewest(Self.maximumWaitingCalls))
    let id = nextTunnelRef
    nextTunnelRef += 1
    tunnelCallSinks[id] = continuation
    continuation.onTermination = { [clock] _ in
      Task(executorPreference: clock.taskExecutor) { await self.forgetCalls(id) }
    }
    return stream
  }

  static let maximumWaitingCalls = 16

  private func forgetCalls(_ id: UInt64) { tunnelCallSinks[id] = nil }

  /// Asks the relay for a tunnel to `lender`: the ticket's secret, or why not. An answer
  /// that does not come within `timeout` seconds is a refusal.
  public func openTunnel(to lender: ParticipantID, timeout: Double = 5) async -> Result<
    String, TunnelRefusal
  > {
    guard let connection else { return .failure(TunnelRefusal("not connected to the relay")) }
    let ref = nextTunnelRef
    nextTunnelRef += 1
    do {
      try connection.send(.tunnelOpen(ref: ref, lender: lender))
    } catch {
      return .failure(TunnelRefusal("not connected to the relay"))
    }
    let clock = self.clock
    return await withCheckedContinuation { waiter in
      tunnelWaiters[ref] = waiter
      Task(executorPreference: clock.taskExecutor) {
        await clock.sleep(seconds: timeout)
        await self.answerTunnel(
          ref, .failure(TunnelRefusal("the relay did not answer within \(Int(timeout)) s")))
      }
    }
  }

  /// Where a tunnel's halves connect: the relay this member is connected to now (nil: the
  /// transport's own), and the certificate its connection checked.
  public var tunnelRelay: (relay: RelayEndpoint?, fingerprint: String?) {
    (currentRelay, connection?.relayFingerprint)
  }

  private func answerTunnel(_ ref: UInt64, _ result: Result<String, TunnelRefusal>) {
    tunnelWaiters.removeValue(forKey: ref)?.resume(returning: result)
  }

  /// What the relay said about tunnels (nothing else is looked at here).
  func tunnelNews(_ message: ServerMessage) {
    switch message {
    case .tunnelTicket(let ref, let secret): answerTunnel(ref, .success(secret))
    case .tunnelRefused(let ref, let reason): answerTunnel(ref, .failure(TunnelRefusal(reason)))
    case .tunnelCall(let secret, let borrower):
      for sink in tunnelCallSinks.values {
        sink.yield(TunnelCall(secret: secret, borrower: borrower))
      }
    default: break
    }
  }

  /// The client stopped: nobody waits for a tunnel any more.
  func endTunnels() {
    for waiter in tunnelWaiters.values {
      waiter.resume(returning: .failure(TunnelRefusal("the participant stopped")))
    }
    tunnelWaiters = [:]
    for sink in tunnelCallSinks.values { sink.finish() }
    tunnelCallSinks = [:]
  }
}
