import Clocks
import PostgresRoomStore
import RelayRuntime
import Rooms
import SQLiteRoomStore
import SyncplayServer
import TCPRelayServer
import WireProtocol

/// A relay as `cowatch serve` runs it: its store opened (and what it kept restored), its
/// TCP port and Syncplay's listening, and a stop that tells everyone, writes what changed
/// and gives shared rooms' leases back.
///
/// Library code rather than the command's, so that tests and other programs start a relay
/// exactly as the command does.
public final class ServedRelay: Sendable {
  public let server: RelayServer
  public let syncplay: SyncplayServer?
  /// What the operator is told once it runs: where rooms are kept (and how many came
  /// back), where Syncplay's clients come in.
  public let notes: [String]

  private init(server: RelayServer, syncplay: SyncplayServer?, notes: [String]) {
    self.server = server
    self.syncplay = syncplay
    self.notes = notes
  }

  public var host: String { server.host }
  public var port: Int { server.port }

  /// Opens the store, restores its rooms and starts listening.
  public static func start(_ options: ServedRelayOptions) async throws(ServedRelayError)
    -> ServedRelay
  {
    var clock = MonotonicClock()
    var store: (any RoomStore)?
    var shared: PostgresRoomStore?
    var restoring: [StoredRoom] = []
    var notes = ["rooms kept in memory only (--store memory)"]
    // Kept rooms (--keep-rooms) outlast the retention: they go only past the bound. Rooms
    // kept on request outlast it in any case (the store spares them).
    let retention = options.configuration.keepsAllRooms ? 1e9 : options.storeRetention
    if let path = options.store {
      do throws(RoomStoreError) {
        if ServedRelayOptions.isPostgres(path) {
          // Shared with other relays: rooms come from the database one by one, as their
          // leases are claimed, not all at start.
          let database = try await PostgresRoomStore.connect(
            url: path,
            advertised: RelayEndpoint(
              address: options.advertise
                ?? ServedRelayOptions.address(options.host, options.port),
              fingerprint: options.fingerprint),
            leaseDuration: options.lease)
          let cutoff = WallClock.nanoseconds() &- Int64(min(retention, 1e9) * 1e9)
          let expired = try await database.removeRooms(writtenBefore: cutoff)
          store = database
          shared = database
          notes[0] =
            "rooms kept in \(database.location), shared with the relays using it (lease \(options.lease) s)"
            + (expired > 0 ? "; \(expired) idle past the retention removed" : "")
        } else {
          let opened = try SQLiteRoomStore(path: path)
          let now = ClockReading(group: clock.groupNow(), wallNanoseconds: WallClock.nanoseconds())
          let loaded = try await RelayRuntime.loadRooms(
            from: opened, retention: retention, now: now)
          clock = MonotonicClock(offsetNanoseconds: loaded.clockOffset)
          store = opened
          restoring = loaded.rooms
          notes[0] =
            "rooms kept in \(path); \(loaded.rooms.count) restored"
            + (loaded.expired > 0 ? ", \(loaded.expired) idle past the retention removed" : "")
        }
      } catch {
        throw ServedRelayError(error.description)
      }
    }
    let server: RelayServer
    do {
      server = try await RelayServer.start(
        host: options.host, port: options.port, configuration: options.configuration,
        clock: clock, store: store, directory: shared, restoring: restoring, tls: options.tls)
    } catch {
      throw ServedRelayError(error.description)
    }
    if let shared, options.advertise == nil {
      // The port the system chose (for --port 0), before anyone can connect to ask.
      shared.advertised?.address = ServedRelayOptions.address(options.host, server.port)
    }
    guard let syncplayPort = options.syncplayPort else {
      return ServedRelay(server: server, syncplay: nil, notes: notes)
    }
    do {
      let tls = options.syncplayTLS ? options.tls : nil
      let syncplay = try await SyncplayServer.start(
        runtime: server.runtime, host: options.host, port: syncplayPort, clock: clock, tls: tls)
      notes.append(
        "Syncplay clients accepted on \(ServedRelayOptions.address(options.host, syncplay.port))"
          + (tls == nil
            ? " (plain TCP: Syncplay's client needs a CA's certificate for TLS)"
            : " (STARTTLS with the relay's certificate)"))
      return ServedRelay(server: server, syncplay: syncplay, notes: notes)
    } catch {
      await server.stop()
      throw ServedRelayError(error.description)
    }
  }

  /// Stops: participants are told, what changed is written, and shared rooms' leases are
  /// given back so that another relay takes them at once.
  public func stop() async {
    await syncplay?.stop()
    await server.stop()
  }

  /// Returns when the relay has stopped (by ``stop()``, or on its own).
  public func wait() async {
    await server.wait()
    await syncplay?.stop()
  }
}
