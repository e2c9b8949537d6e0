import Foundation
import LendingEndpoint
import RelayTLS

/// A clip lent as a member lends it, for a bench's borrowing player: the lender's endpoint
/// over TLS with a certificate of its own, one grant, and the borrower's loopback endpoint
/// reading it range by range (`url` is what the player opens).
struct LentClip {
  let lender: LenderEndpoint
  let borrower: LoopbackItemEndpoint
  let remote: RemoteItemSource
  let size: Int64
  let directory: String
  var url: String { borrower.url }

  static func open(_ clip: String) async throws -> LentClip {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-bench-lender-\(getpid())").path
    let identity = try RelayIdentity.loadOrCreate(in: directory)
    let lender = try await LenderEndpoint.start(
      host: "127.0.0.1", tls: try identity.serverContext(), lends: true)
    let source = try FileItemSource(path: clip)
    let answer = lender.request(
      item: "clip/e1", from: "p2", named: "p2", isMember: true, watched: ["clip/e1"],
      source: source, name: "clip.mp4")
    guard case .granted(let grant) = answer else {
      throw ItemSourceError("the bench's lender refused: \(answer)")
    }
    let remote = try await RemoteItemSource.open(
      "https://127.0.0.1:\(lender.port)\(grant.path)", pinned: identity.fingerprint)
    let borrower = try await LoopbackItemEndpoint.start(serving: remote, as: "clip.mp4")
    return LentClip(
      lender: lender, borrower: borrower, remote: remote, size: source.size,
      directory: directory)
  }

  func close() async {
    await borrower.stop()
    await remote.close()
    await lender.stop()
    try? FileManager.default.removeItem(atPath: directory)
  }
}

extension LentClip {
  /// The borrowing run's table, printed and written as the lending section.
  static func report(
    _ lending: LentClip, elapsed: Double, seconds: Double, firstFrame: [Double],
    seekLocal: [Double], seekBorrowed: [Double], startSpread: [Double], seekSpread: [Double],
    steady: [Double], smoke: Bool
  ) {
    let sent = lending.lender.counts.bytesSent
    var table = Table("measure", "samples", "p50 / p99 / max (ms)")
    table.add(
      "start to loaded and ready, the two with the file", "2",
      Summary(Array(firstFrame[0..<2])).text(1))
    table.add("start to loaded and ready, the borrower", "1", Summary([firstFrame[2]]).text(1))
    table.add(
      "a seek to playing there, the two with the file", "\(seekLocal.count)",
      Summary(seekLocal).text(1))
    table.add(
      "a seek to playing there, the borrower", "\(seekBorrowed.count)",
      Summary(seekBorrowed).text(1))
    table.add(
      "spread in the second after a start (audio clocks)", "\(startSpread.count)",
      Summary(startSpread).text(2))
    table.add(
      "spread in the second after a seek", "\(seekSpread.count)", Summary(seekSpread).text(2))
    table.add("spread, steady, \(Int(seconds)) s", "\(steady.count)", Summary(steady).text(2))
    let bitrate = Double(lending.size) * 8 / 300 / 1e6
    let upload = Double(sent) * 8 / elapsed / 1e6
    emit("mpv, one borrowing", table)
    print(
      "lender upload \(String(format: "%.3f", upload)) Mbit/s over \(Int(elapsed)) s; clip \(String(format: "%.3f", bitrate)) Mbit/s"
    )
    Report.write(
      section: "mpv-lent", title: "9b. A borrowing mpv beside two with the file",
      body: """
        The workload of section 9 (the same clip, rounds and injected speed errors), with
        the third player borrowing the clip as a member without the file does: its mpv reads
        its own loopback endpoint, which reads the lender's endpoint range by range over TLS
        pinned to the lender's certificate (both on this machine: the link adds no delay;
        the path adds its requests, TLS and copies). Lender upload for the one borrower:
        \(String(format: "%.3f", upload)) Mbit/s over the \(Int(elapsed)) s run (the clip
        is \(String(format: "%.3f", bitrate)) Mbit/s: mpv reads ahead, then keeps pace).

        \(table.markdown)
        """, smoke: smoke)
  }
}
