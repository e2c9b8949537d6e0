import NIOCore

/// Where a served item's bytes come from: a file on this machine, or (for a borrower) a
/// lender's copy fetched range by range.
public protocol ItemSource: Sendable {
  /// The item's size in bytes.
  var size: Int64 { get }
  /// Up to `maximum` bytes from `offset` (fewer only at the end).
  func read(from offset: Int64, maximum: Int) async throws -> ByteBuffer
}
