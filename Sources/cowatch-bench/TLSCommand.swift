import ArgumentParser
import Foundation

struct TLSCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tls",
    abstract:
      "What TLS costs: propagation and relay CPU with and without it in one run, and the set-up time of many participants joining at once."
  )
  @OptionGroup var common: CommonOptions
  @Option(help: "Participants in the room.") var participants = 10
  @Option(help: "Rounds of pause, seek and play.") var rounds = 30
  @Option(help: "Seconds of plain watching after the rounds, counted in the CPU.") var steady =
    20.0
  @Option(help: "Participants joining at once.") var joining = 1000

  func run() async throws {
    var modes: [TLSBench.Mode] = []
    for tls in [false, true] {
      progress(
        "tls: \(tls ? "TLS" : "plain TCP"): \(participants) participants, \(rounds) rounds, then \(Int(steady)) s"
      )
      var mode = try await TLSBench.propagation(
        tls: tls, participants: common.smoke ? 3 : participants, rounds: common.smoke ? 2 : rounds,
        steady: common.smoke ? 0.5 : steady)
      progress("tls: \(tls ? "TLS" : "plain TCP"): \(joining) joining at once")
      try await TLSBench.setup(tls: tls, count: common.smoke ? 20 : joining, into: &mode)
      modes.append(mode)
    }
    let t = TLSBench.table(modes, participants: participants, joining: joining)
    emit("TLS cost", t)
    Report.write(
      section: "tls", title: "10. What TLS costs",
      body: """
        One run, the same workload twice against a fresh `cowatch serve` process: with
        `--no-tls`, then with TLS (its self-signed certificate, pinned by the participants).
        Propagation: \(participants) real participants on 127.0.0.1 in one room, \(rounds)
        rounds of pause, seek and play from a random one, each measured from the call to
        the command reaching every other player. Relay CPU: the relay process's CPU time
        over the rounds and \(Int(steady)) s of watching after them, per participant.
        Joining: \(joining) connections started at once (50 rooms), each timed from the
        start of its connect to its welcome (TCP, the TLS handshake and the certificate
        check, hello).

        \(t.markdown)
        """, smoke: common.smoke)
  }
}
