/// Splits a byte stream into newline-terminated frames, refusing any frame longer than a
/// limit so that one peer cannot make the other buffer without bound.
///
/// A trailing `\r` is dropped (CRLF is accepted); empty lines are skipped.
public struct LineFramer: Sendable {
  public let maximumFrameBytes: Int
  private var buffer: [UInt8] = []
  private var scanned = 0

  public init(maximumFrameBytes: Int) {
    self.maximumFrameBytes = maximumFrameBytes
  }

  public mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
    buffer.append(contentsOf: bytes)
  }

  /// The next complete frame, nil if none is complete yet, or an error once the pending
  /// frame exceeds the limit (the stream is then unusable).
  public mutating func nextFrame() throws(WireError) -> [UInt8]? {
    while true {
      guard let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) else {
        scanned = buffer.count
        if buffer.count > maximumFrameBytes {
          throw .frameTooLarge(limit: maximumFrameBytes)
        }
        return nil
      }
      var end = newline
      if end > 0 && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
      let frame = Array(buffer[0..<end])
      buffer.removeSubrange(0...newline)
      scanned = 0
      if frame.count > maximumFrameBytes { throw .frameTooLarge(limit: maximumFrameBytes) }
      if frame.isEmpty { continue }
      return frame
    }
  }

  /// Bytes received but not yet framed.
  public var pendingByteCount: Int { buffer.count }
}
