import Transports
import WireProtocol

/// Asks a relay whether it runs a room now, over a participant's transport (so with the
/// same TLS rules: pinned to the fingerprint the trusted relay named). A relay replaced
/// while its machine slept uses it to find where its room went on.
public enum RoomLocating {
  /// True or false as the relay at `relay` (nil: the transport's own) answers; nil when it
  /// could not be asked or did not answer within `seconds`.
  public static func locate(
    _ room: String, at relay: RelayEndpoint?, over transport: any Transport,
    within seconds: Double = 3
  ) async -> Bool? {
    let connection: any TransportConnection
    do {
      connection = try await transport.connect(to: relay)
      try connection.send(.locate(room: room))
    } catch {
      return nil
    }
    let answer = await withTaskGroup(of: Bool?.self) { group in
      group.addTask {
        do {
          for try await message in connection.inbound {
            guard case .located(let named, let here) = message, named == room else { return nil }
            return here
          }
        } catch {}
        return nil
      }
      group.addTask {
        try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
        return nil
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first
    }
    await connection.close()
    return answer
  }
}
