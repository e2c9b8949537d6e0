import Foundation
import Lending
import LendingEndpoint
import NIOCore
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// An item that answers with more than it was asked for (a lender gone wrong).
final class OverlongItem: ItemSource {
  var size: Int64 { 1000 }
  func read(from offset: Int64, maximum: Int) async throws -> ByteBuffer {
    ByteBuffer(bytes: [UInt8](repeating: 7, count: maximum + 10))
  }
}

@Suite("An item read from another endpoint, range by range", .timeLimit(.minutes(1)))
struct RemoteItemSourceTests {
  @Test("a borrower's endpoint serves what it reads from the lender's, a range at a time")
  func chain() async throws {
    let item = MemoryItem(300_000)
    let lender = try await LoopbackItemEndpoint.start(serving: item, as: "clip.mp4")
    let remote = try await RemoteItemSource.open(lender.url)
    #expect(remote.size == 300_000)
    let borrower = try await LoopbackItemEndpoint.start(serving: remote, as: "clip.mp4")
    let part = try await LoopbackItemEndpointTests().request(borrower, range: "bytes=70000-209999")
    #expect(part.status == 206 && part.body == Array(item.bytes[70_000..<210_000]))
    let whole = try await LoopbackItemEndpointTests().request(borrower)
    #expect(whole.body == item.bytes)
    // The lender was asked in parts no longer than a chunk, all on one connection.
    #expect(lender.counts.ranges >= 5 && lender.counts.refused == 0)
    // Counted once each write is done, which can be after the reader has the bytes.
    await eventually("the lender counts what it sent") {
      lender.counts.bytesSent == 140_000 + 300_000
    }
    #expect(lender.counts.bytesSent == 140_000 + 300_000)
    await remote.close()
    await borrower.stop()
    await lender.stop()
  }

  @Test(
    "nothing at the address, a path that is not the item, a lender whose source reads too much: one error each"
  )
  func refused() async throws {
    let lender = try await LoopbackItemEndpoint.start(serving: MemoryItem(1000), as: "x")
    await #expect(throws: ItemSourceError.self) {
      _ = try await RemoteItemSource.open("http://127.0.0.1:\(lender.port)/nothing/x")
    }
    await #expect(throws: ItemSourceError.self) {
      _ = try await RemoteItemSource.open("ftp://127.0.0.1/x")
    }
    await lender.stop()
    await #expect(throws: ItemSourceError.self) {
      _ = try await RemoteItemSource.open(lender.url, timeout: 1)
    }
    let liar = try await LoopbackItemEndpoint.start(serving: OverlongItem(), as: "x")
    let remote = try await RemoteItemSource.open(liar.url)
    await #expect(throws: (any Error).self) { _ = try await remote.read(from: 0, maximum: 100) }
    await remote.close()
    await liar.stop()
  }

  @Test("a lender that never answers: the read fails within its timeout")
  func silentLender() async throws {
    // A listener that accepts and says nothing.
    let (fd, port) = try #require(listeningSocket())
    defer { close(fd) }
    await #expect(throws: ItemSourceError.self) {
      _ = try await RemoteItemSource.open("http://127.0.0.1:\(port)/t/x", timeout: 0.3)
    }
  }
}

/// A socket listening on 127.0.0.1 at a port of the system's choosing, and that port.
private func listeningSocket() -> (Int32, Int)? {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
      bind(fd, pointer, length) == 0 && listen(fd, 4) == 0
        && getsockname(fd, pointer, &length) == 0
    }
  }
  guard bound else {
    close(fd)
    return nil
  }
  return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// A lender of one's own: answers every request on one connection with `answer`.
private final class ForgedLender: @unchecked Sendable {
  let port: Int
  private let fd: Int32

  init(answer: @escaping @Sendable (String) -> [UInt8]) throws {
    guard let (listener, port) = listeningSocket() else { throw CocoaError(.fileReadUnknown) }
    fd = listener
    self.port = port
    Thread.detachNewThread {
      let client = accept(listener, nil, nil)
      guard client >= 0 else { return }
      defer { close(client) }
      var buffer = [UInt8](repeating: 0, count: 4096)
      var pending: [UInt8] = []
      while true {
        let n = buffer.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
        guard n > 0 else { return }
        pending += buffer[0..<n]
        let text = String(decoding: pending, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { continue }
        let request = String(text[..<end.lowerBound])
        pending = Array(text[end.upperBound...].utf8)
        let bytes = answer(request)
        _ = bytes.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
      }
    }
  }

  deinit {
    shutdown(fd, Int32(SHUT_RDWR))
    close(fd)
  }
}

@Suite("A lender of one's own, against the borrower", .timeLimit(.minutes(1)))
struct RemoteItemSourceAbuseTests {
  @Test(
    "a lender that answers a range with more than was asked (a body past it) is refused before it is read in"
  )
  func floodingLender() async throws {
    let lender = try ForgedLender { request in
      if request.hasPrefix("HEAD") {
        return Array(
          "HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\nAccept-Ranges: bytes\r\n\r\n".utf8)
      }
      // Asked for 100 bytes: promises (and starts sending) 10 MB.
      let body = [UInt8](repeating: 1, count: 200_000)
      return Array(
        "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-99/1000000\r\nContent-Length: 10000000\r\n\r\n"
          .utf8) + body
    }
    let remote = try await RemoteItemSource.open("http://127.0.0.1:\(lender.port)/t/x")
    #expect(remote.size == 1_000_000)
    let error = await #expect(throws: ItemSourceError.self) {
      _ = try await remote.read(from: 0, maximum: 100)
    }
    #expect(
      error.map { "\($0)".contains("more than was asked") } == true, "\(String(describing: error))")
    await remote.close()
  }

  @Test("a lender that answers with another part than asked: refused")
  func wrongPart() async throws {
    let lender = try ForgedLender { request in
      if request.hasPrefix("HEAD") {
        return Array(
          "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nAccept-Ranges: bytes\r\n\r\n".utf8)
      }
      return Array(
        "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 500-599/1000\r\nContent-Length: 100\r\n\r\n"
          .utf8) + [UInt8](repeating: 2, count: 100)
    }
    let remote = try await RemoteItemSource.open("http://127.0.0.1:\(lender.port)/t/x")
    let error = await #expect(throws: ItemSourceError.self) {
      _ = try await remote.read(from: 0, maximum: 100)
    }
    #expect(error.map { "\($0)".contains("not the part asked for") } == true)
    await remote.close()
  }
}
