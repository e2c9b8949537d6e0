import Clocks
import Transports
import WireProtocol

/// Asks a relay whether it runs a room now, over a participant's transport (so with the
/// same TLS rules: pinned to the fingerprint the trusted relay named). A relay replaced
/// while its machine slept uses it to find where its room went on.
public enum RoomLocating {
  /// What the relay at `relay` (nil: the transport's own) answered within `seconds`, or
  /// that nothing listens there, or no answer.
  public static func locate(
    _ room: String, at relay: RelayEndpoint?, over transport: any Transport,
    within seconds: Double = 3, clock: any SessionClock = MonotonicClock()
  ) async -> LocateAnswer {
    let connection: any TransportConnection
    do throws(TransportError) {
      connection = try await transport.connect(to: relay)
      try connection.send(.locate(room: room))
    } catch .refused {
      return .nothingListening
    } catch {
      return .noAnswer
    }
    let answer = await withTaskGroup(of: LocateAnswer.self) { group in
      group.addTask {
        do {
          for try await message in connection.inbound {
            guard case .located(let named, let here, let term) = message, named == room else {
              return .noAnswer
            }
            return here ? .here(term: term ?? 0) : .elsewhere
          }
        } catch {}
        return .noAnswer
      }
      group.addTask {
        await clock.sleep(seconds: seconds)
        return .noAnswer
      }
      let first = await group.next() ?? .noAnswer
      group.cancelAll()
      return first
    }
    await connection.close()
    return answer
  }
}
