import ArgumentParser
import Logging
import ParticipantRuntime
import Participation
import RelayTLS
import RoomsTesting
import TCPRelayClient
import TCPRelayServer

/// Joining by an invite link whose first address is dead: how long from `join` to the
/// room's state, against the live address alone.
enum InviteBench {
  /// Milliseconds from start to welcome (the group's state in hand), `runs` times.
  static func joins(
    runs: Int, port: Int, fingerprint: String, dead: Int?
  ) async throws -> [Double] {
    var times: [Double] = []
    for i in 0..<runs {
      func pinned(_ port: Int) -> TCPTransport {
        TCPTransport(
          host: "127.0.0.1", port: port,
          tls: RelayVerification(pinned: fingerprint, knownRelays: nil))
      }
      let addresses = (dead.map { [pinned($0)] } ?? []) + [pinned(port)]
      let client = ParticipantClient(
        transport: RacingTransport(addresses: addresses),
        configuration: ParticipantConfiguration(name: "p\(i)"), logger: quietLogger())
      let started = monoNow()
      try await client.start()
      times.append(Double(monoNow() - started) / 1e6)
      await client.stop()
    }
    return times
  }

  static func quietLogger() -> Logger {
    var logger = Logger(label: "bench.invite")
    logger.logLevel = .critical
    return logger
  }
}

struct InviteCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "invite",
    abstract: "Joining by an invite link with a dead address in it, against the live one alone.")
  @OptionGroup var common: CommonOptions
  @Option(help: "Joins measured for each case.") var runs = 40

  func run() async throws {
    let runs = common.smoke ? 3 : self.runs
    let identity = try RelayIdentity.makeSelfSigned()
    let server = try await RelayServer.start(
      host: "127.0.0.1", port: 0, logger: InviteBench.quietLogger(),
      identity: identity)
    let silent = try requireBench(SilentListener(), "a port that never answers")
    defer { silent.close() }
    // Warm up (the first TLS handshake pays for more than the rest).
    _ = try await InviteBench.joins(
      runs: 2, port: server.port, fingerprint: identity.fingerprint, dead: nil)
    let alone = try await InviteBench.joins(
      runs: runs, port: server.port, fingerprint: identity.fingerprint, dead: nil)
    let withDead = try await InviteBench.joins(
      runs: runs, port: server.port, fingerprint: identity.fingerprint, dead: silent.port)
    await server.stop()
    var table = Table("link", "joins", "join → room's state p50 / p99 / max (ms)")
    table.add("the live address alone", "\(alone.count)", Summary(alone).text(2))
    table.add(
      "a silent address first, then the live one", "\(withDead.count)", Summary(withDead).text(2))
    emit("Joining by an invite link with a dead address in it", table)
    Report.write(
      section: "invite", title: "15. Joining by an invite link",
      body: """
        A relay with TLS on loopback; a participant joins by a link (`RacingTransport`) and
        the time from the start to its welcome (the room's whole state in hand) is taken,
        \(runs) times a case, one after another: the live address alone, then a link whose
        first address is a port that accepts connections and never answers (what a
        machine asleep, or a LAN address seen from outside, looks like), tried at once with
        the live one. The aim: no slower than the live address alone + 50 ms.

        \(table.markdown)
        """, smoke: common.smoke)
  }
}
