/// How much a relay carries of lent copies (tunnels between a borrower and a lender of one
/// room): bounded in number and in bytes a second, per room and in all, so that a public
/// relay is not a free CDN. A host's relay carries for its own room by default.
public struct TunnelPolicy: Sendable, Hashable {
  /// Bytes a second through all tunnels together, and through one room's.
  public var bytesPerSecond: Double
  public var bytesPerSecondPerRoom: Double
  /// Tunnels open or waiting for their halves: per borrower (a player's reading, reopened
  /// after a drop, and the next item), per room, in all.
  public var maximumPerBorrower: Int
  public var maximumPerRoom: Int
  public var maximumTotal: Int
  /// Seconds a ticket waits for both halves to arrive; then it is gone.
  public var ticketLifetime: Double
  /// Seconds a spliced tunnel may carry nothing either way before it is closed (a paused
  /// player's reader opens another when it reads again).
  public var idleTimeout: Double

  public init(
    bytesPerSecond: Double, bytesPerSecondPerRoom: Double? = nil, maximumPerBorrower: Int = 4,
    maximumPerRoom: Int = 16, maximumTotal: Int = 256, ticketLifetime: Double = 10,
    idleTimeout: Double = 120
  ) {
    self.bytesPerSecond = bytesPerSecond
    self.bytesPerSecondPerRoom = bytesPerSecondPerRoom ?? Self.roomShare(of: bytesPerSecond)
    self.maximumPerBorrower = maximumPerBorrower
    self.maximumPerRoom = maximumPerRoom
    self.maximumTotal = maximumTotal
    self.ticketLifetime = ticketLifetime
    self.idleTimeout = idleTimeout
  }

  /// One room's share of a total: a quarter, but at least what one 1080p stream needs
  /// (1 MB/s) when the total allows it, so that a small total still serves one room well.
  public static func roomShare(of total: Double) -> Double {
    max(total / 4, min(total, 1_000_000))
  }

  /// A host's relay, for its own room: 16 MB/s (a few 1080p streams at once, far below a
  /// home link's share of the machine), and the tunnels of one room.
  public static let host = TunnelPolicy(
    bytesPerSecond: 16_000_000, bytesPerSecondPerRoom: 16_000_000)

  /// Reads a rate as `cowatch serve --lend-relay-rate` takes it: a number and a unit,
  /// `B/s`, `KB/s`, `MB/s` or `GB/s` (powers of 1000), or a bare number of bytes a second;
  /// between 10 KB/s and 10 GB/s.
  public static func parseRate(_ text: String) -> Result<Double, TunnelRateError> {
    let trimmed = String(text.filter { $0 != " " })
    let units: [(String, Double)] = [
      ("GB/s", 1e9), ("MB/s", 1e6), ("KB/s", 1e3), ("kB/s", 1e3), ("B/s", 1),
    ]
    var number = Substring(trimmed)
    var factor = 1.0
    for (unit, value) in units where trimmed.hasSuffix(unit) {
      number = trimmed.dropLast(unit.count)
      factor = value
      break
    }
    guard let value = Double(number), value.isFinite else {
      return .failure(TunnelRateError(text: text))
    }
    let rate = value * factor
    guard (10_000...10e9).contains(rate) else { return .failure(TunnelRateError(text: text)) }
    return .success(rate)
  }
}

/// A rate that `--lend-relay-rate` cannot take, said with the form it wants.
public struct TunnelRateError: Error, Sendable, CustomStringConvertible {
  public var text: String
  public var description: String {
    "not a rate: \"\(text.prefix(40))\"; write it as 4MB/s, 500KB/s or bytes a second (10 KB/s to 10 GB/s)"
  }
}
