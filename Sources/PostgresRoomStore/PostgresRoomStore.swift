import Clocks
import Foundation
import Logging
import PlaybackCoordination
import PostgresNIO
import Rooms
import Synchronization
import WireProtocol

/// A ``RoomStore`` and ``RoomDirectory`` in a PostgreSQL database, through postgres-nio:
/// several relays share their rooms' truth there, each room run by the relay that holds its
/// lease.
///
/// One row per room (its state as JSON, the password verifier if any, the clocks of the
/// write), one per member (as JSON), one lease per room (owner, its advertised address and
/// certificate, an epoch that grows with every change of owner, an expiry on the
/// database's clock), one row per live relay; each batch is one transaction. Writes are
/// fenced: a room is only written while this relay holds its lease with the epoch it
/// claimed, checked and locked in the same transaction. Tables are created if missing.
public final class PostgresRoomStore: RoomStore, RoomDirectory {
  /// The database as people may see it (`postgres://user@host:port/db`, no password).
  public let location: String
  private let client: PostgresClient
  private let runTask: Task<Void, Never>
  private let logger: Logger
  /// Longest a read or a write may take by default, seconds.
  public static let defaultTimeout = 10.0
  /// Longest a read or a write may take, seconds.
  public let timeout: Double
  /// What the bound on a read or a write is measured by.
  private let clock: any SessionClock
  /// Names this relay in the leases: random, new for every run.
  public let relayID: String
  /// Where participants reach this relay (set once the port is bound, before anyone can
  /// connect); nil: a store for one relay alone, which loads every room at start and writes
  /// without leases (tests, tools).
  public var advertised: RelayEndpoint? {
    get { advertisedEndpoint.withLock { $0 } }
    set { advertisedEndpoint.withLock { $0 = newValue } }
  }
  private let advertisedEndpoint: Mutex<RelayEndpoint?>
  /// Whether writes are fenced by leases (the store was opened to share rooms).
  private let shared: Bool
  public let leaseDuration: Double
  /// Leases held, with the epoch each was claimed at; rooms whose write was fenced off.
  private let leases = Mutex(Leases())

  private struct Leases {
    var held: [String: Int64] = [:]
    var lost: Set<String> = []
  }

  /// Default lease: a dead relay's rooms are taken over within this (and a quarter more).
  public static let defaultLeaseDuration = 5.0

  private init(
    location: String, client: PostgresClient, runTask: Task<Void, Never>, logger: Logger,
    advertised: RelayEndpoint?, leaseDuration: Double, timeout: Double, clock: any SessionClock
  ) {
    self.timeout = timeout
    self.clock = clock
    shared = advertised != nil
    self.location = location
    self.client = client
    self.runTask = runTask
    self.logger = logger
    self.advertisedEndpoint = Mutex(advertised)
    self.leaseDuration = leaseDuration
    var random = SystemRandomNumberGenerator()
    relayID = (0..<2).map { _ in String(random.next(), radix: 16) }.joined(separator: "-")
  }

  deinit { runTask.cancel() }

  /// Connects to `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`, with
  /// `?sslmode=require` for TLS to the database) and makes the tables if they are missing.
  /// `advertised` is where participants reach this relay (what redirects name);
  /// `leaseDuration` how long a room stays this relay's without renewal, seconds;
  /// `timeout` the longest a read or a write may take (a test beside busy loops, whose
  /// server answers slowly for reasons that are not its subject, gives more).
  public static func connect(
    url: String, advertised: RelayEndpoint? = nil,
    leaseDuration: Double = PostgresRoomStore.defaultLeaseDuration,
    timeout: Double = PostgresRoomStore.defaultTimeout, clock: any SessionClock = MonotonicClock(),
    logger: Logger = Logger(label: "cowatch.store.postgres")
  ) async throws(RoomStoreError) -> PostgresRoomStore {
    guard leaseDuration.isFinite, (0.2...600).contains(leaseDuration) else {
      throw RoomStoreError("a lease is 0.2–600 seconds, not \(leaseDuration)")
    }
    guard timeout.isFinite, (0.1...600).contains(timeout) else {
      throw RoomStoreError("a store's timeout is 0.1–600 seconds, not \(timeout)")
    }
    let settings = try PostgresURL(url)
    var configuration = PostgresClient.Configuration(
      host: settings.host, port: settings.port, username: settings.user,
      password: settings.password, database: settings.database,
      tls: settings.requireTLS ? .require(.makeClientConfiguration()) : .disable)
    configuration.options.connectTimeout = .seconds(Int64(timeout))
    configuration.options.maximumConnections = 4
    try await checkReachable(settings, logger: logger)
    let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    let runTask = Task { await client.run() }
    let store = PostgresRoomStore(
      location: settings.displayed, client: client, runTask: runTask, logger: logger,
      advertised: advertised, leaseDuration: leaseDuration, timeout: timeout, clock: clock)
    do {
      try await store.bounded("creating the tables") { client in
        for statement in Self.schema {
          try await client.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
      }
    } catch {
      runTask.cancel()
      throw error
    }
    return store
  }

  /// One connection first, on its own: the pool retries a refused or refusing database
  /// quietly until a query times out, so a wrong port, host or password would only show as
  /// "took more than 10 s"; this says what is wrong at once.
  private static func checkReachable(_ settings: PostgresURL, logger: Logger)
    async throws(RoomStoreError)
  {
    var tls = PostgresConnection.Configuration.TLS.disable
    if settings.requireTLS {
      do {
        tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
      } catch {
        throw RoomStoreError("TLS to the database \(settings.displayed): \(error)")
      }
    }
    let configuration = PostgresConnection.Configuration(
      host: settings.host, port: settings.port, username: settings.user,
      password: settings.password, database: settings.database, tls: tls)
    do {
      let connection = try await PostgresConnection.connect(
        configuration: configuration, id: 0, logger: logger)
      try? await connection.close()
    } catch let error as PSQLError {
      let why =
        error.serverInfo?[.message]
        ?? error.underlying.map { Self.systemReason("\($0)") } ?? Self.words(for: error.code)
      throw RoomStoreError("cannot reach the database \(settings.displayed): \(why)")
    } catch {
      throw RoomStoreError("cannot reach the database \(settings.displayed): \(error)")
    }
  }

  /// What went wrong, for the codes a wrong address, port or setting gives.
  static func words(for code: PSQLError.Code) -> String {
    let wrongPlace = "(is a PostgreSQL server at this address and port?)"
    switch code {
    case .serverClosedConnection:
      return "the other side closed the connection before PostgreSQL answered \(wrongPlace)"
    case .messageDecodingFailure, .unexpectedBackendMessage:
      return "what answered there does not speak PostgreSQL \(wrongPlace)"
    case .sslUnsupported:
      return "the server does not offer TLS, which the URL requires (sslmode=require)"
    case .authMechanismRequiresPassword:
      return "the server asks for a password: give it in the URL (postgres://USER:PASSWORD@HOST/DB)"
    case .unsupportedAuthMechanism, .saslError:
      return "the server asks for a way of signing in that this client does not support"
    default:
      return "\(code)"
    }
  }

  /// A socket error as people read it ("Connection refused"), from NIO's description of
  /// it, which ends in "(errno: 111)"; the description itself when there is none.
  static func systemReason(_ description: String) -> String {
    guard let range = description.range(of: "errno: ", options: .backwards),
      let code = Int32(description[range.upperBound...].prefix { $0.isNumber })
    else { return description }
    return String(cString: strerror(code)).lowercased()
  }

  static let schema = [
    """
    CREATE TABLE IF NOT EXISTS cowatch_room (
      name TEXT PRIMARY KEY,
      state TEXT NOT NULL,
      next_number BIGINT NOT NULL,
      written_wall_ns BIGINT NOT NULL,
      protection TEXT
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS cowatch_member (
      room TEXT NOT NULL REFERENCES cowatch_room(name) ON DELETE CASCADE,
      participant TEXT NOT NULL,
      data TEXT NOT NULL,
      PRIMARY KEY (room, participant)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS cowatch_clock (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      group_ns BIGINT NOT NULL,
      wall_ns BIGINT NOT NULL
    )
    """,
    "ALTER TABLE cowatch_room ADD COLUMN IF NOT EXISTS group_ns BIGINT NOT NULL DEFAULT 0",
    // The room's conversation for newcomers (JSON, bounded by the relay); NULL: none.
    "ALTER TABLE cowatch_room ADD COLUMN IF NOT EXISTS backlog TEXT",
    // Whether its owner asked for it to be kept (the state's control.kept): cleaning idle
    // rooms spares it without reading every state.
    "ALTER TABLE cowatch_room ADD COLUMN IF NOT EXISTS kept BOOLEAN NOT NULL DEFAULT false",
    """
    CREATE TABLE IF NOT EXISTS cowatch_lease (
      room TEXT PRIMARY KEY,
      relay TEXT NOT NULL,
      address TEXT NOT NULL,
      fingerprint TEXT,
      epoch BIGINT NOT NULL,
      expires TIMESTAMPTZ NOT NULL
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS cowatch_relay (
      id TEXT PRIMARY KEY,
      address TEXT NOT NULL,
      fingerprint TEXT,
      expires TIMESTAMPTZ NOT NULL
    )
    """,
  ]

  /// Stops the connections.
  public func close() { runTask.cancel() }

  public func load() async throws(RoomStoreError) -> (rooms: [StoredRoom], clock: ClockReading?) {
    let logger = self.logger
    return try await bounded("reading") { client in
      let decoder = JSONDecoder()
      var members: [String: [StoredMember]] = [:]
      let memberRows = try await client.query(
        "SELECT room, data FROM cowatch_member ORDER BY room, participant", logger: logger)
      for try await (room, data) in memberRows.decode((String, String).self) {
        members[room, default: []].append(
          try decoder.decode(StoredMember.self, from: Data(data.utf8)))
      }
      var rooms: [StoredRoom] = []
      let roomRows = try await client.query(
        "SELECT name, state, next_number, protection, backlog FROM cowatch_room ORDER BY name",
        logger: logger)
      for try await (name, state, next, protection, backlog) in roomRows.decode(
        (String, String, Int64, String?, String?).self)
      {
        rooms.append(
          try Self.storedRoom(
            name, state: state, nextNumber: next, protection: protection, backlog: backlog,
            members: members[name] ?? [], decoder: decoder))
      }
      var clock: ClockReading?
      let clockRows = try await client.query(
        "SELECT group_ns, wall_ns FROM cowatch_clock WHERE id = 1", logger: logger)
      for try await (group, wall) in clockRows.decode((Int64, Int64).self) {
        clock = ClockReading(group: GroupInstant(nanoseconds: group), wallNanoseconds: wall)
      }
      return (rooms, clock)
    }
  }

  public func write(_ batch: RoomStoreBatch) async throws(RoomStoreError) {
    let encoder = JSONEncoder()
    let rooms: [(RoomChange, String, String?, [(String, String)], String?, Bool)]
    do {
      rooms = try batch.changed.map { change in
        let state = try change.storedState()
        return (
          change, String(decoding: try encoder.encode(state), as: UTF8.self),
          try change.protection.map { String(decoding: try encoder.encode($0), as: UTF8.self) },
          try change.members.map {
            ($0.participant.rawValue, String(decoding: try encoder.encode($0), as: UTF8.self))
          },
          try change.backlog.map { String(decoding: try encoder.encode($0), as: UTF8.self) },
          state.control.kept
        )
      }
    } catch {
      throw RoomStoreError("cannot encode a room for \(location): \(error)")
    }
    let logger = self.logger
    let relayID = self.relayID
    let shared = self.shared
    let held = leases.withLock { $0.held }
    let fenced = try await bounded("writing") { client in
      try await client.withTransaction(logger: logger) { connection in
        // The fence: only rooms whose lease this relay holds, at the epoch it claimed,
        // unexpired; the rows stay locked until the commit, so no takeover slips between.
        let names = batch.removed + batch.changed.map(\.name)
        var owned = Set<String>()
        if !shared { owned = Set(names) }
        let rows = try await connection.query(
          """
          SELECT room, epoch FROM cowatch_lease
          WHERE relay = \(relayID) AND room = ANY(\(names)) AND expires > clock_timestamp()
          FOR SHARE
          """, logger: logger)
        for try await (room, epoch) in rows.decode((String, Int64).self)
        where shared && held[room] == epoch {
          owned.insert(room)
        }
        // One statement per table, whatever the batch's size: a round trip per row made
        // the writer fall behind at 10,000 participants (6,400 rows/s).
        let removed = batch.removed.filter { owned.contains($0) }
        if !removed.isEmpty {
          try await connection.query(
            "DELETE FROM cowatch_room WHERE name = ANY(\(removed))", logger: logger)
        }
        let kept = rooms.filter { owned.contains($0.0.name) }
        if !kept.isEmpty {
          let names = kept.map(\.0.name)
          let states = kept.map(\.1)
          let nexts = kept.map { Int64(clamping: $0.0.nextNumber) }
          // No NULL in a bound array here: an empty string stands for "no password".
          let protections = kept.map { $0.2 ?? "" }
          // Likewise an empty string for "the backlog as written before".
          let backlogs = kept.map { $0.4 ?? "" }
          let keeps = kept.map(\.5)
          let wall = batch.clock.wallNanoseconds
          let group = batch.clock.group.nanoseconds
          try await connection.query(
            """
            INSERT INTO cowatch_room (name, state, next_number, written_wall_ns, protection, group_ns, backlog, kept)
            SELECT r.name, r.state, r.next, \(wall), NULLIF(r.protection, ''), \(group),
              NULLIF(r.backlog, ''), r.kept
            FROM UNNEST(\(names)::text[], \(states)::text[], \(nexts)::int8[], \(protections)::text[],
              \(backlogs)::text[], \(keeps)::bool[])
              AS r(name, state, next, protection, backlog, kept)
            ON CONFLICT (name) DO UPDATE SET state = EXCLUDED.state,
              next_number = EXCLUDED.next_number, written_wall_ns = EXCLUDED.written_wall_ns,
              protection = EXCLUDED.protection, group_ns = EXCLUDED.group_ns,
              backlog = COALESCE(EXCLUDED.backlog, cowatch_room.backlog), kept = EXCLUDED.kept
            """, logger: logger)
          let memberRooms = kept.flatMap { change in change.3.map { _ in change.0.name } }
          let participants = kept.flatMap { $0.3.map(\.0) }
          let data = kept.flatMap { $0.3.map(\.1) }
          if !participants.isEmpty {
            try await connection.query(
              """
              INSERT INTO cowatch_member (room, participant, data)
              SELECT * FROM UNNEST(\(memberRooms)::text[], \(participants)::text[], \(data)::text[])
              ON CONFLICT (room, participant) DO UPDATE SET data = EXCLUDED.data
              """, logger: logger)
          }
          let goneRooms = kept.flatMap { change in change.0.departed.map { _ in change.0.name } }
          let gone = kept.flatMap { $0.0.departed.map(\.rawValue) }
          if !gone.isEmpty {
            try await connection.query(
              """
              DELETE FROM cowatch_member WHERE (room, participant) IN (
                SELECT * FROM UNNEST(\(goneRooms)::text[], \(gone)::text[]))
              """, logger: logger)
          }
        }
        let group = batch.clock.group.nanoseconds
        let wall = batch.clock.wallNanoseconds
        try await connection.query(
          """
          INSERT INTO cowatch_clock (id, group_ns, wall_ns) VALUES (1, \(group), \(wall))
          ON CONFLICT (id) DO UPDATE SET group_ns = EXCLUDED.group_ns, wall_ns = EXCLUDED.wall_ns
          """, logger: logger)
        return Set(names).subtracting(owned)
      }
    }
    guard !fenced.isEmpty else { return }
    // Not written: those rooms are another relay's now. The runtime hears of it at the
    // next renewal and stops running them.
    leases.withLock { l in
      for room in fenced where l.held[room] != nil {
        l.held[room] = nil
        l.lost.insert(room)
      }
    }
    logger.warning(
      "not written: \(fenced.sorted().joined(separator: ", ")) (this relay no longer holds their lease)"
    )
  }

  public func removeRooms(writtenBefore wallNanoseconds: Int64) async throws(RoomStoreError)
    -> Int
  {
    let logger = self.logger
    return try await bounded("removing idle rooms") { client in
      let rows = try await client.query(
        """
        DELETE FROM cowatch_room WHERE written_wall_ns < \(wallNanoseconds) AND NOT kept
          AND NOT EXISTS (
            SELECT 1 FROM cowatch_lease
            WHERE cowatch_lease.room = cowatch_room.name AND expires > clock_timestamp())
        RETURNING name
        """,
        logger: logger)
      var count = 0
      for try await _ in rows.decode(String.self) { count += 1 }
      return count
    }
  }

  // MARK: - Leases (RoomDirectory)

  public func claim(_ room: String) async throws(RoomStoreError) -> RoomClaim {
    let logger = self.logger
    let me = relayID
    guard let advertised else {
      throw RoomStoreError("this store was opened for one relay alone; it holds no leases")
    }
    let address = advertised.address
    let fingerprint = advertised.fingerprint
    let lease = leaseDuration
    let outcome: (epoch: Int64?, owner: RelayEndpoint?) = try await bounded("claiming \(room) in") {
      client in
      // Taken when free, expired, already this relay's, or held by an earlier run at this
      // same address (that process is gone: this one listens there now).
      let rows = try await client.query(
        """
        INSERT INTO cowatch_lease (room, relay, address, fingerprint, epoch, expires)
        VALUES (\(room), \(me), \(address), \(fingerprint), 1,
          clock_timestamp() + make_interval(secs => \(lease)))
        ON CONFLICT (room) DO UPDATE SET relay = EXCLUDED.relay, address = EXCLUDED.address,
          fingerprint = EXCLUDED.fingerprint, epoch = cowatch_lease.epoch + 1,
          expires = EXCLUDED.expires
        WHERE cowatch_lease.expires <= clock_timestamp() OR cowatch_lease.relay = EXCLUDED.relay
          OR cowatch_lease.address = EXCLUDED.address
        RETURNING epoch
        """, logger: logger)
      for try await epoch in rows.decode(Int64.self) { return (epoch, nil) }
      let owners = try await client.query(
        "SELECT address, fingerprint FROM cowatch_lease WHERE room = \(room)", logger: logger)
      for try await (address, fingerprint) in owners.decode((String, String?).self) {
        return (nil, RelayEndpoint(address: address, fingerprint: fingerprint))
      }
      return (nil, nil)
    }
    guard let epoch = outcome.epoch else {
      guard let owner = outcome.owner else {
        throw RoomStoreError("room \(room) changed hands while claiming it; try again")
      }
      return .elsewhere(owner)
    }
    leases.withLock { l in
      l.held[room] = epoch
      l.lost.remove(room)
    }
    do {
      let (stored, clock) = try await loadRoom(room)
      return .owned(stored: stored, clock: clock)
    } catch {
      try? await release([room])
      throw error
    }
  }

  /// One room as stored, and the clocks it was written on.
  /// A room as its row keeps it (state and protection as JSON text).
  private static func storedRoom(
    _ name: String, state: String, nextNumber: Int64, protection: String?, backlog: String?,
    members: [StoredMember], decoder: JSONDecoder
  ) throws -> StoredRoom {
    StoredRoom(
      name: name, state: try decoder.decode(GroupState.self, from: Data(state.utf8)),
      nextNumber: UInt64(max(0, nextNumber)), members: members,
      protection: try protection.map {
        try decoder.decode(RoomProtection.self, from: Data($0.utf8))
      },
      backlog: try backlog.map { try decoder.decode([StoredMessage].self, from: Data($0.utf8)) }
        ?? [])
  }

  private func loadRoom(_ room: String) async throws(RoomStoreError) -> (StoredRoom?, ClockReading?)
  {
    let logger = self.logger
    return try await bounded("reading \(room) from") { client in
      let decoder = JSONDecoder()
      var members: [StoredMember] = []
      let memberRows = try await client.query(
        "SELECT data FROM cowatch_member WHERE room = \(room) ORDER BY participant",
        logger: logger)
      for try await data in memberRows.decode(String.self) {
        members.append(try decoder.decode(StoredMember.self, from: Data(data.utf8)))
      }
      let rows = try await client.query(
        """
        SELECT state, next_number, protection, group_ns, written_wall_ns, backlog FROM cowatch_room
        WHERE name = \(room)
        """, logger: logger)
      for try await (state, next, protection, group, wall, backlog) in rows.decode(
        (String, Int64, String?, Int64, Int64, String?).self)
      {
        let stored = try Self.storedRoom(
          room, state: state, nextNumber: next, protection: protection, backlog: backlog,
          members: members, decoder: decoder)
        return (
          stored, ClockReading(group: GroupInstant(nanoseconds: group), wallNanoseconds: wall)
        )
      }
      return (nil, nil)
    }
  }

  public func renewLeases() async throws(RoomStoreError) -> Set<String> {
    let logger = self.logger
    let me = relayID
    let lease = leaseDuration
    let address = advertised?.address ?? ""
    let fingerprint = advertised?.fingerprint
    let held = leases.withLock { $0.held }
    let names = Array(held.keys)
    let renewed: [String: Int64] = try await bounded("renewing leases in") { client in
      try await client.query(
        """
        INSERT INTO cowatch_relay (id, address, fingerprint, expires)
        VALUES (\(me), \(address), \(fingerprint), clock_timestamp() + make_interval(secs => \(lease)))
        ON CONFLICT (id) DO UPDATE SET expires = EXCLUDED.expires, address = EXCLUDED.address,
          fingerprint = EXCLUDED.fingerprint
        """, logger: logger)
      var renewed: [String: Int64] = [:]
      guard !names.isEmpty else { return renewed }
      let rows = try await client.query(
        """
        UPDATE cowatch_lease SET expires = clock_timestamp() + make_interval(secs => \(lease))
        WHERE relay = \(me) AND room = ANY(\(names)) AND expires > clock_timestamp()
        RETURNING room, epoch
        """, logger: logger)
      for try await (room, epoch) in rows.decode((String, Int64).self) { renewed[room] = epoch }
      return renewed
    }
    return leases.withLock { l in
      var lost = l.lost
      l.lost = []
      for (room, epoch) in held where renewed[room] != epoch && l.held[room] == epoch {
        l.held[room] = nil
        lost.insert(room)
      }
      return lost
    }
  }

  public func release(_ rooms: [String]) async throws(RoomStoreError) {
    guard !rooms.isEmpty else { return }
    let logger = self.logger
    let me = relayID
    leases.withLock { l in
      for room in rooms { l.held[room] = nil }
    }
    try await bounded("releasing leases in") { client in
      try await client.query(
        """
        UPDATE cowatch_lease SET expires = clock_timestamp()
        WHERE relay = \(me) AND room = ANY(\(rooms))
        """, logger: logger)
      return ()
    }
  }

  public func peers() async throws(RoomStoreError) -> [RelayEndpoint] {
    let logger = self.logger
    let me = relayID
    let address = advertised?.address ?? ""
    return try await bounded("listing relays in") { client in
      var peers: [RelayEndpoint] = []
      let rows = try await client.query(
        """
        SELECT address, fingerprint FROM cowatch_relay
        WHERE expires > clock_timestamp() AND id <> \(me) AND address <> \(address)
        ORDER BY address LIMIT 32
        """, logger: logger)
      for try await (address, fingerprint) in rows.decode((String, String?).self)
      where RelayEndpoint.isPlausible(address: address) {
        peers.append(RelayEndpoint(address: address, fingerprint: fingerprint))
      }
      return peers
    }
  }

  /// The rooms this relay holds leases for now (for tests and status).
  public var heldRooms: [String] { leases.withLock { $0.held.keys.sorted() } }

  /// Runs `body` against the database, at most ``timeout`` seconds; any failure becomes a
  /// ``RoomStoreError`` saying what was being done and where.
  private func bounded<Result: Sendable>(
    _ what: String, _ body: @escaping @Sendable (PostgresClient) async throws -> Result
  ) async throws(RoomStoreError) -> Result {
    let client = self.client
    let location = self.location
    let timeout = self.timeout
    let clock = self.clock
    do {
      // Raced against a timer without waiting for the loser: a query stuck on a database
      // that does not answer need not end for the relay to go on.
      return try await withCheckedThrowingContinuation { continuation in
        let settled = Mutex(false)
        let settle: @Sendable (Swift.Result<Result, any Error>) -> Bool = { result in
          guard
            settled.withLock({ done in
              defer { done = true }
              return !done
            })
          else {
            return false
          }
          continuation.resume(with: result)
          return true
        }
        // The timer goes as soon as the work is done: a sleeping task per query would pile
        // up for `timeout` seconds on a busy relay.
        let timer = Mutex<Task<Void, Never>?>(nil)
        let work = Task {
          let result: Swift.Result<Result, any Error>
          do {
            result = .success(try await body(client))
          } catch {
            result = .failure(error)
          }
          if settle(result) { timer.withLock { $0?.cancel() } }
        }
        timer.withLock {
          $0 = Task {
            await clock.sleep(seconds: timeout)
            guard !Task.isCancelled else { return }
            if settle(
              .failure(RoomStoreError("\(what) \(location) took more than \(Int(timeout)) s")))
            {
              work.cancel()
            }
          }
        }
      }
    } catch let error as RoomStoreError {
      throw error
    } catch let error as PSQLError {
      throw RoomStoreError(
        "\(what) \(location) failed: \(error.serverInfo?[.message] ?? "\(error.code)")")
    } catch {
      throw RoomStoreError("\(what) \(location) failed: \(error)")
    }
  }
}
