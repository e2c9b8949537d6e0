/// Splits a byte stream into newline-terminated frames, refusing any frame longer than a
/// limit so that one peer cannot make the other buffer without bound.
///
/// A trailing `\r` is dropped (CRLF is accepted); empty lines are skipped.
///
/// Linear in the bytes received: frames are taken by index and the buffer is compacted once
/// all complete frames are out (not once per frame), so a flood of short lines costs no
/// more than their bytes. Between lines it holds no memory at all: a relay keeps one framer
/// per connection, and most connections are idle between a ping and the next.
public struct LineFramer: Sendable {
  public let maximumFrameBytes: Int
  private var buffer: [UInt8] = []
  /// Where the next frame starts.
  private var start = 0
  /// Everything before this was searched for a newline already.
  private var scanned = 0

  /// Hand out empty lines (as empty frames) instead of skipping them: the relay counts
  /// them against its rate limit.
  public let emitsEmptyLines: Bool

  public init(maximumFrameBytes: Int, emitsEmptyLines: Bool = false) {
    self.maximumFrameBytes = maximumFrameBytes
    self.emitsEmptyLines = emitsEmptyLines
  }

  public mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
    buffer.append(contentsOf: bytes)
  }

  /// The next complete frame, nil if none is complete yet, or an error once the pending
  /// frame exceeds the limit (the stream is then unusable).
  public mutating func nextFrame() throws(FrameTooLarge) -> [UInt8]? {
    while true {
      guard let newline = buffer[max(scanned, start)...].firstIndex(of: UInt8(ascii: "\n"))
      else {
        scanned = buffer.count
        if buffer.count - start > maximumFrameBytes {
          throw FrameTooLarge(limit: maximumFrameBytes)
        }
        compact()
        return nil
      }
      var end = newline
      if end > start && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
      let length = end - start
      let frame = length > maximumFrameBytes ? [] : Array(buffer[start..<end])
      start = newline + 1
      scanned = start
      if length > maximumFrameBytes { throw FrameTooLarge(limit: maximumFrameBytes) }
      if frame.isEmpty && !emitsEmptyLines { continue }
      return frame
    }
  }

  /// Drops the bytes already framed; frees the buffer once it is empty (the next read
  /// allocates one again, a small cost beside the frame it carries).
  private mutating func compact() {
    guard start > 0 else { return }
    if start == buffer.count {
      buffer = []
    } else {
      buffer.removeFirst(start)
    }
    scanned -= start
    start = 0
  }

  /// Bytes received but not yet framed.
  public var pendingByteCount: Int { buffer.count - start }

  /// Bytes of storage it holds now, framed or not (what an idle connection costs).
  public var heldCapacity: Int { buffer.capacity }
}
