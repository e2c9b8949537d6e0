import NIOCore

/// Where a served item's bytes come from: a file on this machine, or (for a borrower) a
/// lender's copy fetched range by range.
public protocol ItemSource: Sendable {
  /// The item's size in bytes.
  var size: Int64 { get }
  /// Up to `maximum` bytes from `offset` (fewer only at the end).
  func read(from offset: Int64, maximum: Int) async throws -> ByteBuffer
}

/// An item held in memory whole: a lent subtitle file, read once from the lender.
public struct BytesItemSource: ItemSource {
  public let bytes: ByteBuffer
  public var size: Int64 { Int64(bytes.readableBytes) }
  public init(_ bytes: ByteBuffer) { self.bytes = bytes }

  public func read(from offset: Int64, maximum: Int) async throws -> ByteBuffer {
    guard offset >= 0, offset < size, maximum > 0 else { return ByteBuffer() }
    return bytes.getSlice(at: Int(offset), length: Int(min(Int64(maximum), size - offset)))!
  }

  /// All of `source`, when it is at most `limit` bytes.
  public static func reading(_ source: any ItemSource, limit: Int) async throws -> BytesItemSource {
    guard source.size <= Int64(limit) else {
      throw ItemSourceError("\(source.size) bytes, more than the \(limit) taken")
    }
    var all = ByteBuffer()
    while all.readableBytes < Int(source.size) {
      var part = try await source.read(from: Int64(all.readableBytes), maximum: 64 * 1024)
      guard part.readableBytes > 0 else { throw ItemSourceError("the source read nothing") }
      all.writeBuffer(&part)
    }
    return BytesItemSource(all)
  }
}
