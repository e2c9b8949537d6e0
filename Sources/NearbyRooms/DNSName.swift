/// A domain name as its labels ("ann's room", "_cowatch", "_tcp", "local"). Labels are
/// bytes on the wire, so an instance label may hold spaces and dots (RFC 6763 §4.3).
public struct DNSName: Hashable, Sendable, CustomStringConvertible {
  public var labels: [String]

  public init(labels: [String]) { self.labels = labels }

  /// Each label at most 63 bytes, the whole name at most 255 (RFC 1035 §2.3.4).
  public static func isValid(_ labels: [String]) -> Bool {
    var length = 1
    for label in labels {
      let count = label.utf8.count
      guard (1...63).contains(count) else { return false }
      length += count + 1
    }
    return length <= 255
  }

  /// Names compare without regard to ASCII case (RFC 6762 §16).
  public func matches(_ other: DNSName) -> Bool {
    labels.count == other.labels.count
      && zip(labels, other.labels).allSatisfy { $0.lowercased() == $1.lowercased() }
  }

  /// Whether this name is `suffix` with labels in front of it.
  public func ends(with suffix: DNSName) -> Bool {
    labels.count > suffix.labels.count
      && DNSName(labels: Array(labels.suffix(suffix.labels.count))).matches(suffix)
  }

  public var description: String { labels.joined(separator: ".") }

  func encode(into out: inout [UInt8]) throws(DNSMessageError) {
    guard Self.isValid(labels) else { throw .init("the name \"\(self)\" is too long") }
    for label in labels {
      out.append(UInt8(label.utf8.count))
      out.append(contentsOf: label.utf8)
    }
    out.append(0)
  }
}
