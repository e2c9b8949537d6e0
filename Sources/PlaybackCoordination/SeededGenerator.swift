/// A small deterministic random number generator (SplitMix64): the same seed gives the same
/// latencies, stalls, relay secrets and property-test runs on every run, so tests and demos
/// are reproducible and the pure centre never needs a system source of randomness.
public struct SeededGenerator: RandomNumberGenerator, Hashable, Sendable {
  private var state: UInt64

  public init(seed: UInt64) { state = seed }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// Uniform in `range` (its lower bound when it is a single value, drawing nothing).
  public mutating func value(in range: ClosedRange<Double>) -> Double {
    range.lowerBound == range.upperBound ? range.lowerBound : Double.random(in: range, using: &self)
  }
}
