import Lending
import LendingEndpoint
import NIOCore
import RelayTLS
import TestSupport
import Testing

/// A lender's endpoint, over TLS with the member's own certificate, read by borrowers'
/// processes through their grants.
@Suite("A lender's endpoint: members' grants, over TLS", .timeLimit(.minutes(1)))
struct LenderEndpointTests {
  static let watched: Set<String> = ["night-ferry/s1e1"]

  static func lender(lends: Bool = true) async throws -> (LenderEndpoint, RelayIdentity) {
    let identity = try RelayIdentity.makeSelfSigned()
    let endpoint = try await LenderEndpoint.start(
      host: "127.0.0.1", tls: try identity.serverContext(), lends: lends)
    return (endpoint, identity)
  }

  static func grant(
    _ lender: LenderEndpoint, _ item: MemoryItem, to borrower: String = "carol"
  ) throws -> LendingBook.Grant {
    let answer = lender.request(
      item: "night-ferry/s1e1", from: borrower, named: borrower, isMember: true,
      watched: watched, source: item, name: "Night Ferry S01E01.mp4")
    guard case .granted(let grant) = answer else {
      throw ItemSourceError("not granted: \(answer)")
    }
    return grant
  }

  @Test("carol, granted, reads ann's copy over TLS pinned to ann's certificate, by ranges")
  func grantedReads() async throws {
    let (lender, identity) = try await Self.lender()
    let item = MemoryItem(200_000)
    let grant = try Self.grant(lender, item)
    let url = "https://127.0.0.1:\(lender.port)\(grant.path)"
    let remote = try await RemoteItemSource.open(url, pinned: identity.fingerprint)
    #expect(remote.size == 200_000)
    let part = try await remote.read(from: 150_000, maximum: 60_000)
    #expect(Array(part.readableBytesView) == Array(item.bytes[150_000..<200_000]))
    #expect(lender.borrowers == ["night-ferry/s1e1": ["carol"]])
    // Counted once each write is done, which can be after the reader has the bytes.
    await eventually("the lender counts what it sent") { lender.counts.bytesSent == 50_000 }
    #expect(lender.counts.refused == 0 && lender.counts.bytesSent == 50_000)
    await remote.close()
    await lender.stop()
  }

  @Test("another certificate than the one pinned: one clear error, nothing read")
  func wrongCertificate() async throws {
    let (lender, _) = try await Self.lender()
    let grant = try Self.grant(lender, MemoryItem(1000))
    let other = try RelayIdentity.makeSelfSigned()
    do {
      _ = try await RemoteItemSource.open(
        "https://127.0.0.1:\(lender.port)\(grant.path)", pinned: other.fingerprint)
      Issue.record("read through a certificate that was not the lender's")
    } catch {
      #expect(error.description.contains("cannot read the item at 127.0.0.1:\(lender.port)"))
      #expect(error.description.lowercased().contains("certificate"), "\(error)")
    }
    #expect(lender.counts.bytesSent == 0)
    await lender.stop()
  }

  @Test("without a grant — a guessed path, a lender that does not lend — nothing is served")
  func noGrant() async throws {
    let (lender, identity) = try await Self.lender()
    let guessed = "/0123456789abcdef0123456789abcdef/Night_Ferry_S01E01.mp4"
    do {
      _ = try await RemoteItemSource.open(
        "https://127.0.0.1:\(lender.port)\(guessed)", pinned: identity.fingerprint)
      Issue.record("served without a grant")
    } catch {
      #expect(error.description.contains("404"), "\(error)")
    }
    let (closed, _) = try await Self.lender(lends: false)
    let answer = closed.request(
      item: "night-ferry/s1e1", from: "carol", named: "carol", isMember: true,
      watched: Self.watched, source: MemoryItem(10), name: "x")
    #expect(answer == .refused("they do not lend their copies"))
    #expect(lender.counts.bytesSent == 0 && closed.counts.requests == 0)
    await lender.stop()
    await closed.stop()
  }

  @Test("carol leaves: her grant goes, and her next read is refused; bob's goes on")
  func revokedOnLeave() async throws {
    let (lender, identity) = try await Self.lender()
    let item = MemoryItem(100_000)
    let carols = try Self.grant(lender, item)
    let bobs = try Self.grant(lender, item, to: "bob")
    let carol = try await RemoteItemSource.open(
      "https://127.0.0.1:\(lender.port)\(carols.path)", pinned: identity.fingerprint)
    let bob = try await RemoteItemSource.open(
      "https://127.0.0.1:\(lender.port)\(bobs.path)", pinned: identity.fingerprint)
    _ = try await carol.read(from: 0, maximum: 1000)
    #expect(lender.revoke(borrower: "carol") == [carols])
    await #expect(throws: ItemSourceError.self) { try await carol.read(from: 1000, maximum: 1000) }
    let read = try await bob.read(from: 1000, maximum: 1000)
    #expect(Array(read.readableBytesView) == Array(item.bytes[1000..<2000]))
    #expect(lender.borrowers == ["night-ferry/s1e1": ["bob"]])
    // Lending stopped: bob's goes too.
    #expect(lender.setLends(false) == [bobs])
    await #expect(throws: ItemSourceError.self) { try await bob.read(from: 0, maximum: 10) }
    await carol.close()
    await bob.close()
    await lender.stop()
  }

  @Test("plain HTTP at a lender's TLS port reads nothing")
  func plainRefused() async throws {
    let (lender, _) = try await Self.lender()
    let grant = try Self.grant(lender, MemoryItem(1000))
    await #expect(throws: ItemSourceError.self) {
      _ = try await RemoteItemSource.open(
        "http://127.0.0.1:\(lender.port)\(grant.path)", timeout: 2)
    }
    #expect(lender.counts.bytesSent == 0)
    await lender.stop()
  }
}
