import NIOSSL
import PostgresRoomStore
import Rooms

/// What a relay is started with: where it listens, its limits, where it keeps its rooms,
/// and whether it takes Syncplay's clients too.
public struct ServedRelayOptions: Sendable {
  public var host: String
  public var port: Int
  public var configuration: RelayConfiguration
  /// Where rooms are kept across restarts: an SQLite file, a PostgreSQL URL
  /// (`postgres://…`, shared with other relays), or nil to keep them in memory only.
  public var store: String?
  /// Stored rooms not written for this long are forgotten when starting, seconds.
  public var storeRetention: Double
  /// With a PostgreSQL store: where participants reach this relay (nil: host and port).
  public var advertise: String?
  /// With a PostgreSQL store: seconds a room stays this relay's without renewing its lease.
  public var lease: Double
  /// Also accept Syncplay's clients on this port, into the same rooms.
  public var syncplayPort: Int?
  /// The relay's TLS, if any; `fingerprint` names its certificate in what other relays
  /// hand out.
  public var tls: NIOSSLContext?
  public var fingerprint: String?
  /// Whether Syncplay's clients are offered STARTTLS: they give up on a certificate no CA
  /// vouches for, so only with one.
  public var syncplayTLS: Bool

  public init(
    host: String = "127.0.0.1", port: Int = 7700, configuration: RelayConfiguration = .init(),
    store: String? = nil, storeRetention: Double = 3600, advertise: String? = nil,
    lease: Double = PostgresRoomStore.defaultLeaseDuration, syncplayPort: Int? = nil,
    tls: NIOSSLContext? = nil,
    fingerprint: String? = nil, syncplayTLS: Bool = false
  ) {
    self.host = host
    self.port = port
    self.configuration = configuration
    self.store = store
    self.storeRetention = storeRetention
    self.advertise = advertise
    self.lease = lease
    self.syncplayPort = syncplayPort
    self.tls = tls
    self.fingerprint = fingerprint
    self.syncplayTLS = syncplayTLS
  }

  /// Whether `store` names a PostgreSQL database rather than a file.
  public static func isPostgres(_ store: String) -> Bool {
    store.hasPrefix("postgres://") || store.hasPrefix("postgresql://")
  }

  /// `HOST:PORT`, with brackets for IPv6.
  public static func address(_ host: String, _ port: Int) -> String {
    host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
  }
}
