/// How imperfect a ``SimulatedPlayer`` is. Latencies and stall lengths are ranges drawn from
/// a generator seeded with `seed`, so a run is reproducible.
public struct SimulatedPlayerConfiguration: Hashable, Sendable {
  /// Clock error in parts per million: the media clock runs at `(1 + driftPPM × 1e-6)` ×
  /// local time (+500 ppm gains 0.5 s in 1000 s).
  public var driftPPM: Double
  /// Seconds from `load` until ready (paused).
  public var loadLatency: ClosedRange<Double>
  /// Seconds from `play` until able to start (a start far enough ahead is still on time).
  public var playLatency: ClosedRange<Double>
  /// Seconds a `seek` keeps the player busy.
  public var seekLatency: ClosedRange<Double>
  /// Chance of a stall beginning per second of playing (stalls arrive as a Poisson process).
  public var stallsPerSecond: Double
  /// Seconds a stall lasts.
  public var stallDuration: ClosedRange<Double>
  public var seed: UInt64

  public init(
    driftPPM: Double = 0,
    loadLatency: ClosedRange<Double> = 0.3...0.3,
    playLatency: ClosedRange<Double> = 0.05...0.05,
    seekLatency: ClosedRange<Double> = 0.15...0.15,
    stallsPerSecond: Double = 0,
    stallDuration: ClosedRange<Double> = 1...3,
    seed: UInt64 = 1
  ) {
    precondition(
      loadLatency.lowerBound >= 0 && playLatency.lowerBound >= 0 && seekLatency.lowerBound >= 0
        && stallDuration.lowerBound >= 0 && stallsPerSecond >= 0,
      "latencies, stall lengths and the stall rate must not be negative")
    self.driftPPM = driftPPM
    self.loadLatency = loadLatency
    self.playLatency = playLatency
    self.seekLatency = seekLatency
    self.stallsPerSecond = stallsPerSecond
    self.stallDuration = stallDuration
    self.seed = seed
  }

  /// A perfect player: no drift, no latency, no stalls.
  public static let ideal = SimulatedPlayerConfiguration(
    loadLatency: 0...0, playLatency: 0...0, seekLatency: 0...0)
}
