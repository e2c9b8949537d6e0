import ArgumentParser
import Foundation
import HeadlessFront
import NearbyDiscovery
import NearbyRooms
import RelayRuntime
import RelayTLS
import Synchronization

struct NearbyCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "nearby",
    abstract:
      "List the rooms advertised on the local network (by cowatch host, or serve --advertise-nearby)."
  )

  @Flag(help: "One JSON object per room and line, as each is found.") var json = false
  @Option(help: ArgumentHelp("How long to look, in seconds.", valueName: "S")) var wait = 3.0

  func validate() throws {
    guard wait.isFinite, (0.1...3600).contains(wait) else {
      throw ValidationError("--wait must be 0.1–3600 seconds")
    }
  }

  func run() async throws {
    let seen = Mutex(0)
    do {
      try await NearbyBrowsing.browse(for: .milliseconds(Int(wait * 1000))) { event in
        // A room that changed is printed again (the newest line for a room is what holds):
        // one first heard from a stranger without TLS may give way to the real one.
        let room: NearbyRoom
        switch event {
        case .appeared(let found): room = found
        case .changed(let found): room = found
        case .left: return true
        }
        seen.withLock { $0 += 1 }
        let verified = Self.isVerified(room, known: KnownRelays())
        Console.line(
          json ? Self.json(room, verified: verified) : Self.line(room, verified: verified))
        return true
      }
    } catch {
      throw CommandFailure("nearby", error.description)
    }
    if seen.withLock({ $0 }) == 0, !json {
      Console.error(
        "no rooms nearby (looked for \(Self.seconds(wait)); a host started with --no-advertise, or on another network, is not listed)"
      )
    }
  }

  /// Whether the advertisement's certificate is one already trusted at one of its
  /// addresses. An advertisement is anyone's claim: a link pinned to what it names would be
  /// joined without the question `join --nearby` asks, so only a verified room's is printed.
  static func isVerified(_ room: NearbyRoom, known: KnownRelays) -> Bool {
    guard let fingerprint = room.fingerprint else { return false }
    return room.link.addresses.contains { known.fingerprint(for: $0) == fingerprint }
  }

  static func line(_ room: NearbyRoom, verified: Bool) -> String {
    var parts = [room.room]
    parts.append(
      room.host.map { "hosted by \($0) on \(room.machine)" } ?? "on \(room.machine)'s relay")
    parts.append("\(room.people) \(room.people == 1 ? "person" : "people")")
    if room.password { parts.append("password") }
    if room.fingerprint == nil { parts.append("no TLS") }
    let head = parts.joined(separator: " · ")
    if verified { return head + "\n  cowatch join \(room.link.text) --name NAME" }
    let why =
      room.fingerprint.map {
        "its certificate \(RelayFingerprint.shown($0)) is not known here yet: join asks before trusting it, or ask its host for the invite"
      }
      ?? "it says it runs without TLS: join only with --no-tls, or ask its host for an invite with TLS"
    return head + "\n  cowatch join --nearby \(room.room) --name NAME\n  (\(why))"
  }

  /// `link` only when verified (see ``isVerified(_:known:)``), `null` otherwise.
  static func json(_ room: NearbyRoom, verified: Bool) -> String {
    OrderedJSON.object([
      ("room", .string(room.room)),
      ("host", room.host.map(OrderedJSON.string) ?? .null),
      ("machine", .string(room.machine)),
      ("addresses", .array(room.addresses.map { .string("\($0):\(room.port)") })),
      ("fingerprint", room.fingerprint.map { .string(RelayFingerprint.shown($0)) } ?? .null),
      ("verified", .bool(verified)),
      ("password", .bool(room.password)),
      ("people", .int(Int64(room.people))),
      ("link", verified ? .string(room.link.text) : .null),
    ]).serialized
  }

  static func seconds(_ value: Double) -> String {
    value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
  }
}

/// Advertising a relay's rooms nearby, as `host` and `serve --advertise-nearby` do.
enum NearbyAdvertising {
  /// Starts advertising `runtime`'s rooms at `addresses` (IPv4) and `port`; a machine where
  /// it cannot (no multicast interface) is told in one line, and the room runs on.
  static func start(
    runtime: RelayRuntime, addresses: [String], port: Int, fingerprint: String?,
    command: String
  ) async -> NearbyAdvertiser? {
    let machine = machineName()
    do {
      return try await NearbyAdvertiser.start {
        runtime.roomSummaries.map { summary in
          NearbyRoom(
            room: summary.name, host: summary.host, machine: machine, port: UInt16(port),
            addresses: addresses, fingerprint: fingerprint, password: summary.password,
            people: summary.people)
        }
      }
    } catch {
      Console.error("cowatch \(command): not advertised nearby: \(error.reason)")
      return nil
    }
  }
}

/// This machine's short name (`gethostname`, up to the first dot), which tells rooms of one
/// name on two machines apart.
func machineName() -> String {
  var buffer = [CChar](repeating: 0, count: 256)
  guard gethostname(&buffer, buffer.count - 1) == 0 else { return "cowatch" }
  let name = String(
    decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  return name.split(separator: ".").first.map(String.init) ?? "cowatch"
}
