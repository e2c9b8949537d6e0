import PlaybackCoordination

/// Draws used by the randomized (property-style) tests, on the same seeded generator the
/// product uses, so that every run sees the same sequences.
extension SeededGenerator {
  mutating func int(_ upperBound: Int) -> Int { Int(next() % UInt64(upperBound)) }
  mutating func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }
  mutating func double(_ range: ClosedRange<Double>) -> Double {
    range.lowerBound + unit() * (range.upperBound - range.lowerBound)
  }
  /// Uniform in `range`.
  mutating func uniform(_ range: ClosedRange<Double>) -> Double { double(range) }
  /// True with probability `p`.
  mutating func chance(_ p: Double) -> Bool { unit() < p }
  mutating func pick<T>(_ values: [T]) -> T { values[int(values.count)] }
}
