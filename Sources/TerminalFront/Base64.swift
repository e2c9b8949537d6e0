/// Standard base64 with padding, for the clipboard's escape sequence (this module does
/// without Foundation).
enum Base64 {
  private static let alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  static func encode(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var index = 0
    while index < bytes.count {
      let chunk = bytes[index..<min(index + 3, bytes.count)]
      let b0 = chunk[chunk.startIndex]
      let b1 = chunk.count > 1 ? chunk[chunk.startIndex + 1] : 0
      let b2 = chunk.count > 2 ? chunk[chunk.startIndex + 2] : 0
      out.append(alphabet[Int(b0 >> 2)])
      out.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
      out.append(chunk.count > 1 ? alphabet[Int((b1 & 0x0f) << 2 | b2 >> 6)] : UInt8(ascii: "="))
      out.append(chunk.count > 2 ? alphabet[Int(b2 & 0x3f)] : UInt8(ascii: "="))
      index += 3
    }
    return out
  }
}
