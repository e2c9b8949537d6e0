/// The bytes of an item one HTTP request asks for (RFC 9110 §14.1.2): a player reading a
/// lent item seeks by asking for the part it needs, and only that part is read and sent.
///
/// One range per request: `bytes=FIRST-LAST`, `bytes=FIRST-` (to the end) or `bytes=-N`
/// (the last N). Several ranges at once are refused rather than answered in parts: no
/// player asks for them, and each would be a read of its own.
public struct ByteRange: Hashable, Sendable {
  /// The first byte's offset.
  public let first: Int64
  /// The last byte's offset (inclusive).
  public let last: Int64

  public var count: Int64 { last - first + 1 }

  public init(first: Int64, last: Int64) {
    precondition(first >= 0 && last >= first, "a byte range runs forward from 0")
    self.first = first
    self.last = last
  }

  /// Why a request's range cannot be served: one clear reason, answered 416 (or 400).
  public enum Problem: Error, Hashable, Sendable, CustomStringConvertible {
    /// Not a range this endpoint reads (not bytes, not numbers, backwards).
    case malformed(String)
    /// Several ranges in one request.
    case severalRanges
    /// A range wholly past the end of an item of `size` bytes.
    case unsatisfiable(size: Int64)

    public var description: String {
      switch self {
      case .malformed(let why): "the range is not one this endpoint reads: \(why)"
      case .severalRanges: "one range at a time"
      case .unsatisfiable(let size): "the item has \(size) bytes: nothing there"
      }
    }
  }

  /// The longest Range header read: far more than one range takes.
  public static let maximumHeaderLength = 100

  /// What `header` (the Range header's value; nil: none) asks of an item of `size` bytes:
  /// a range within it, or nil for the whole item. A range that runs past the end is cut
  /// to it, as RFC 9110 says.
  public static func requested(by header: String?, size: Int64) -> Result<ByteRange?, Problem> {
    precondition(size >= 0, "an item has a size")
    guard let header else { return .success(nil) }
    guard header.utf8.count <= maximumHeaderLength else { return .failure(.malformed("too long")) }
    let text = header.trimmingSpaces
    guard text.hasPrefix("bytes=") else { return .failure(.malformed("not in bytes")) }
    let spec = text.dropFirst("bytes=".count)
    guard !spec.contains(",") else { return .failure(.severalRanges) }
    let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
    guard parts.count == 2 else { return .failure(.malformed("no dash")) }
    let (from, to) = (parts[0].trimmingSpaces, parts[1].trimmingSpaces)
    if from.isEmpty {
      // The last N bytes.
      guard let suffix = number(to), suffix > 0 else {
        return .failure(.malformed("a suffix is a positive number of bytes"))
      }
      guard size > 0 else { return .failure(.unsatisfiable(size: size)) }
      return .success(ByteRange(first: max(0, size - suffix), last: size - 1))
    }
    guard let first = number(from) else { return .failure(.malformed("the start is not a number")) }
    var last = size - 1
    if !to.isEmpty {
      guard let end = number(to) else { return .failure(.malformed("the end is not a number")) }
      guard end >= first else { return .failure(.malformed("it ends before it starts")) }
      last = min(end, size - 1)
    }
    guard first < size else { return .failure(.unsatisfiable(size: size)) }
    return .success(ByteRange(first: first, last: last))
  }

  /// Digits only, at most 18 of them (an Int64 with room to spare).
  private static func number(_ text: String) -> Int64? {
    guard !text.isEmpty, text.utf8.count <= 18,
      text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
    else { return nil }
    return Int64(text)
  }
}

extension StringProtocol {
  fileprivate var trimmingSpaces: String {
    String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
  }
}
