import ArgumentParser
import Foundation
import NIOSSL
import RelayTLS

/// TLS options of the commands that run a relay (`serve`, `host`).
struct RelayTLSOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "The relay's TLS certificate (PEM), with --tls-key. Default: a self-signed one, made once and kept in $XDG_STATE_HOME/cowatch (~/.local/state/cowatch).",
      valueName: "FILE"))
  var tlsCert: String?
  @Option(help: ArgumentHelp("The certificate's private key (PEM).", valueName: "FILE"))
  var tlsKey: String?
  @Flag(help: "Plain TCP without TLS: anyone on the path can read and change everything.")
  var noTls = false

  func validate() throws {
    if (tlsCert == nil) != (tlsKey == nil) {
      throw ValidationError("--tls-cert and --tls-key go together")
    }
    if noTls, tlsCert != nil {
      throw ValidationError("--no-tls and --tls-cert contradict each other")
    }
  }

  /// The relay's certificate, or nil for `--no-tls`.
  func identity(command: String) throws(CommandFailure) -> RelayIdentity? {
    guard !noTls else { return nil }
    do {
      if let tlsCert, let tlsKey {
        return try RelayIdentity.load(certificate: tlsCert, key: tlsKey)
      }
      return try RelayIdentity.loadOrCreate(in: StatePaths.directory())
    } catch {
      throw CommandFailure(command, error.description)
    }
  }

  static func context(_ identity: RelayIdentity?, command: String) throws(CommandFailure)
    -> NIOSSLContext?
  {
    guard let identity else { return nil }
    do {
      return try identity.serverContext()
    } catch {
      throw CommandFailure(command, error.description)
    }
  }

  /// Whether `host` is a loopback address (only this machine can connect).
  static func isLoopback(_ host: String) -> Bool {
    host == "localhost" || host == "::1" || host.hasPrefix("127.")
  }
}

/// How a participant checks the relay (`join`).
struct RelayTrustOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "The relay's certificate fingerprint (from the invite): only that relay is accepted.",
      valueName: "SHA256:…"))
  var fingerprint: String?
  @Flag(
    help:
      "Trust a relay not known yet and remember it (headless mode never asks; the front does).")
  var trustNewRelay = false
  @Flag(help: "Connect without TLS (to a relay run with --no-tls).") var noTls = false

  func validate() throws {
    if let fingerprint, RelayFingerprint.parse(fingerprint) == nil {
      throw ValidationError("--fingerprint must look like SHA256: and 43 base64 characters")
    }
    if noTls, fingerprint != nil || trustNewRelay {
      throw ValidationError("--no-tls connects without a certificate to check")
    }
  }

  /// How to check the relay: nil for `--no-tls`; a person at a terminal is asked about a
  /// relay not known yet.
  func verification(headless: Bool) -> RelayVerification? {
    guard !noTls else { return nil }
    var ask: (@Sendable (String, String) async -> Bool)?
    if !headless {
      ask = { @Sendable endpoint, fingerprint in
        SecretPrompt.confirm(
          "The relay at \(endpoint) presents \(RelayFingerprint.shown(fingerprint)) — trust it? [y/N] "
        )
      }
    }
    return RelayVerification(
      pinned: fingerprint.flatMap(RelayFingerprint.parse), knownRelays: KnownRelays(),
      trustNew: trustNewRelay, ask: ask)
  }
}

/// Where Cowatch keeps its state: `$XDG_STATE_HOME/cowatch`, else `~/.local/state/cowatch`.
enum StatePaths {
  static func directory() -> String {
    let environment = ProcessInfo.processInfo.environment
    let state =
      environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
      ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/state")
    return state + "/cowatch"
  }
}
