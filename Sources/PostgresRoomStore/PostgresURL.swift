import Foundation
import Rooms

/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=require]`, checked.
struct PostgresURL {
  var user: String
  var password: String?
  var host: String
  var port: Int
  var database: String
  var requireTLS: Bool

  /// The URL without its password, for messages and logs.
  var displayed: String { "postgres://\(user)@\(host):\(port)/\(database)" }

  init(_ text: String) throws(RoomStoreError) {
    guard let url = URLComponents(string: text), ["postgres", "postgresql"].contains(url.scheme),
      let host = url.host, !host.isEmpty, let user = url.user, !user.isEmpty
    else {
      throw RoomStoreError(
        "--store \(text.contains("@") ? "postgres://…" : text): expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE"
      )
    }
    let database = String(url.path.drop { $0 == "/" })
    guard !database.isEmpty else { throw RoomStoreError("--store: the URL names no database") }
    let port = url.port ?? 5432
    guard (1...65535).contains(port) else { throw RoomStoreError("--store: bad port \(port)") }
    let mode = url.queryItems?.first { $0.name == "sslmode" }?.value ?? "disable"
    guard ["disable", "require"].contains(mode) else {
      throw RoomStoreError("--store: sslmode must be disable or require, not \(mode)")
    }
    self.user = user
    password = url.password
    self.host = host
    self.port = port
    self.database = database
    requireTLS = mode == "require"
  }
}
