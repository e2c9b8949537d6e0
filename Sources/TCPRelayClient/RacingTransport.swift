import RelayTLS
import Synchronization
import Transports
import WireProtocol

/// One relay at several addresses (an invite link's: the public one, the LAN ones), tried
/// at once: the first connection whose TLS handshake checks out wins, and the others are
/// closed as they come, so that a dead address costs nothing when another one answers.
/// When none of them answers, the fallbacks (the room's successors, each with its own
/// certificate) are tried the same way.
public struct RacingTransport: Transport {
  public let addresses: [TCPTransport]
  public let fallbacks: [TCPTransport]

  public init(addresses: [TCPTransport], fallbacks: [TCPTransport] = []) {
    precondition(!addresses.isEmpty, "a relay needs at least one address")
    self.addresses = addresses
    self.fallbacks = fallbacks
  }

  public var endpointDescription: String {
    addresses.map(\.endpointDescription).joined(separator: " or ")
  }

  public func connect() async throws(TransportError) -> any TransportConnection {
    do {
      return try await Self.race(addresses)
    } catch {
      guard !fallbacks.isEmpty else { throw error }
      do {
        return try await Self.race(fallbacks)
      } catch let late {
        // What went wrong with the room's own addresses says more, unless the successors
        // were refused for their certificates.
        if case .untrusted = late { throw late }
        throw error
      }
    }
  }

  /// Another relay (a redirect, a successor): as the first address's transport would.
  public func connect(to relay: RelayEndpoint?) async throws(TransportError)
    -> any TransportConnection
  {
    guard let relay else { return try await connect() }
    return try await addresses[0].connect(to: relay)
  }

  enum Outcome: Sendable {
    case won(any TransportConnection)
    case lost
    case failed(Int, TransportError)
  }

  /// The first of `transports` to connect (and pass its handshake). A certificate that is
  /// not the expected one at one address does not end the race (on another network, that
  /// address may be someone else's machine); it is the answer only when no address
  /// connects. A person who must be asked about a certificate is asked about one address
  /// at a time.
  static func race(_ transports: [TCPTransport]) async throws(TransportError)
    -> any TransportConnection
  {
    if transports.count == 1 || transports.contains(where: { $0.tls?.ask != nil }) {
      var failures: [TransportError] = []
      for transport in transports {
        do {
          return try await transport.connect()
        } catch {
          failures.append(error)
        }
      }
      throw Self.combined(failures, transports)
    }
    let (outcomes, sink) = AsyncStream<Outcome>.makeStream()
    let decided = Decided()
    for (index, transport) in transports.enumerated() {
      Task {
        do throws(TransportError) {
          let connection = try await transport.connect()
          if decided.claim() {
            sink.yield(.won(connection))
          } else {
            await connection.close()
            sink.yield(.lost)
          }
        } catch {
          sink.yield(.failed(index, error))
        }
      }
    }
    var failures: [Int: TransportError] = [:]
    for await outcome in outcomes {
      switch outcome {
      case .won(let connection):
        sink.finish()
        return connection
      case .lost:
        continue
      case .failed(let index, let error):
        failures[index] = error
      }
      if failures.count == transports.count { break }
    }
    sink.finish()
    throw Self.combined(transports.indices.compactMap { failures[$0] }, transports)
  }

  /// One error for several addresses that all failed: a refused certificate first, since
  /// trying again cannot help it.
  static func combined(_ failures: [TransportError], _ transports: [TCPTransport])
    -> TransportError
  {
    for failure in failures { if case .untrusted = failure { return failure } }
    if failures.count == 1 { return failures[0] }
    let reasons = zip(transports, failures).map { transport, error in
      if case .unreachable(_, let reason) = error {
        "\(transport.endpointDescription): \(reason)"
      } else if case .refused = error {
        "\(transport.endpointDescription): connection refused (is a relay running there?)"
      } else {
        "\(transport.endpointDescription): \(error)"
      }
    }
    return .unreachable(
      endpoint: transports.map(\.endpointDescription).joined(separator: " or "),
      reason: reasons.joined(separator: "; "))
  }

  /// Who won the race: the first to claim it.
  final class Decided: Sendable {
    private let state = Mutex(false)
    func claim() -> Bool {
      state.withLock { claimed in
        defer { claimed = true }
        return !claimed
      }
    }
  }
}
