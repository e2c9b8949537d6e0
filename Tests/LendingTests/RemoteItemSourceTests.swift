import Foundation
import Lending
import LendingEndpoint
import NIOCore
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
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
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
    #expect(bound)
    let port = Int(UInt16(bigEndian: address.sin_port))
    await #expect(throws: ItemSourceError.self) {
      _ = try await RemoteItemSource.open("http://127.0.0.1:\(port)/t/x", timeout: 0.3)
    }
  }
}
