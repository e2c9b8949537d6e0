import PlaybackCoordination

/// How a range of numbers crosses the wire: `{"min":0.25,"max":4}`.
///
/// Swift's own `ClosedRange` coding is a bare two-element array, which a reader in another
/// language would have to guess the meaning of; named bounds say it. These are plain
/// functions rather than a `Codable` conformance because `ClosedRange` already has one
/// (the array) that we must not replace for everyone.
private enum RangeKeys: String, CodingKey {
  case min, max
}

extension KeyedEncodingContainer {
  mutating func encodeRange(_ range: ClosedRange<Double>, forKey key: Key) throws {
    var bounds = nestedContainer(keyedBy: RangeKeys.self, forKey: key)
    try bounds.encode(range.lowerBound, forKey: .min)
    try bounds.encode(range.upperBound, forKey: .max)
  }
}

extension KeyedDecodingContainer {
  /// Decodes `{"min":…,"max":…}`, refusing `min > max` (which would trap in `ClosedRange`)
  /// so that a bad peer gets a decoding error rather than crashing its receiver.
  func decodeRange(forKey key: Key) throws -> ClosedRange<Double> {
    let bounds = try nestedContainer(keyedBy: RangeKeys.self, forKey: key)
    let min = try bounds.decode(Double.self, forKey: .min)
    let max = try bounds.decode(Double.self, forKey: .max)
    guard min <= max else {
      throw DecodingError.dataCorruptedError(
        forKey: .max, in: bounds, debugDescription: "max \(max) is below min \(min)")
    }
    return min...max
  }
}
