import Foundation
import RelayTLS
import Testing

/// A relay's certificate renewed while people watch: SIGHUP gives new connections the new
/// one, and drops nobody.
@Suite("serve: a renewed certificate, on SIGHUP", .serialized)
struct CertificateReloadTests {
  @Test("after SIGHUP, newcomers get the new certificate; who was in stays in")
  func reload() async throws {
    let base = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-reload-\(UInt32.random(in: 0...UInt32.max))")
    defer { try? FileManager.default.removeItem(at: base) }
    let old = try RelayIdentity.loadOrCreate(in: base.appendingPathComponent("old").path)
    let new = try RelayIdentity.loadOrCreate(in: base.appendingPathComponent("new").path)
    let certificate = base.appendingPathComponent("cert.pem")
    let key = base.appendingPathComponent("key.pem")
    func install(_ name: String) throws {
      for (file, into) in [("relay-certificate.pem", certificate), ("relay-key.pem", key)] {
        try? FileManager.default.removeItem(at: into)
        try FileManager.default.copyItem(
          at: base.appendingPathComponent(name).appendingPathComponent(file), to: into)
      }
    }
    try install("old")
    let (relay, port) = try await CowatchProcess.relay([
      "--tls-cert", certificate.path, "--tls-key", key.path,
    ])
    defer { relay.terminate() }
    func join(_ name: String, pinned fingerprint: String) throws -> CowatchProcess {
      try CowatchProcess([
        "join", "127.0.0.1:\(port)", "--name", name, "--headless", "--no-carry",
        "--fingerprint", fingerprint,
      ])
    }
    let ann = try join("ann", pinned: old.fingerprint)
    defer { ann.terminate() }
    try #require(await ann.waitForLine(containing: [#""event":"welcome""#]) != nil)

    try install("new")
    kill(relay.processIdentifier, SIGHUP)
    await relay.waitForLine(containing: [
      "certificate reloaded: \(RelayFingerprint.shown(new.fingerprint))"
    ])
    let bob = try join("bob", pinned: new.fingerprint)
    defer { bob.terminate() }
    try #require(await bob.waitForLine(containing: [#""event":"welcome""#]) != nil)
    // ann was not dropped: she hears bob at once, on the connection she had.
    bob.send("say hello")
    await ann.waitForLine(containing: [#""event":"chat""#, "hello"])
    #expect(ann.output.filter { $0.contains(#""event":"welcome""#) }.count == 1)
    // The old certificate is gone for newcomers.
    let carl = try join("carl", pinned: old.fingerprint)
    #expect(await carl.exitStatus() != 0)
    #expect(
      carl.standardError.contains("fingerprint") || carl.standardError.contains("certificate"))
  }
}
