import Crypto
import Foundation
import NIOCore
import NIOSSL
import SwiftASN1
import X509

/// The certificate a relay presents, with its key: given as PEM files (`--tls-cert`,
/// `--tls-key`), or made once, self-signed, and kept in the relay's state directory so that
/// its fingerprint stays the same across restarts (participants pin or remember it).
public struct RelayIdentity: Sendable {
  public let certificatePEM: String
  public let keyPEM: String
  /// What participants check (see ``RelayFingerprint``).
  public let fingerprint: String
  /// True when this relay made the certificate itself (no CA vouches for it: participants
  /// must pin or trust its fingerprint).
  public let isSelfSigned: Bool

  /// Reads a certificate and its private key from PEM files.
  public static func load(certificate: String, key: String) throws(RelayTLSError) -> RelayIdentity {
    let certificatePEM: String
    let keyPEM: String
    do {
      certificatePEM = try String(contentsOfFile: certificate, encoding: .utf8)
    } catch {
      throw .unreadable(path: certificate, reason: error.localizedDescription)
    }
    do {
      keyPEM = try String(contentsOfFile: key, encoding: .utf8)
    } catch {
      throw .unreadable(path: key, reason: error.localizedDescription)
    }
    return try RelayIdentity(
      certificatePEM: certificatePEM, keyPEM: keyPEM, isSelfSigned: false,
      names: (certificate, key))
  }

  /// The self-signed certificate kept in `directory` (`relay-certificate.pem`,
  /// `relay-key.pem`), made now if there is none yet.
  public static func loadOrCreate(in directory: String, now: Date = Date()) throws(RelayTLSError)
    -> RelayIdentity
  {
    let certificatePath = (directory as NSString).appendingPathComponent("relay-certificate.pem")
    let keyPath = (directory as NSString).appendingPathComponent("relay-key.pem")
    let files = FileManager.default
    do {
      try files.createDirectory(
        atPath: directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    } catch {
      throw .unwritable(path: directory, reason: error.localizedDescription)
    }
    // Relays started at once on a fresh machine (a test suite, a service manager) must not
    // each make a certificate, nor read one another's half-written files: one at a time.
    let lockPath = (directory as NSString).appendingPathComponent("relay-identity.lock")
    let lock = open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
    guard lock >= 0 else {
      throw .unwritable(path: lockPath, reason: String(cString: strerror(errno)))
    }
    defer { close(lock) }
    let deadline = Date().addingTimeInterval(10)
    while flock(lock, LOCK_EX | LOCK_NB) != 0 {
      guard errno == EWOULDBLOCK || errno == EINTR, Date() < deadline else {
        throw .unwritable(
          path: lockPath, reason: "another relay has held it for 10 s (is one stuck starting?)")
      }
      usleep(10_000)
    }
    defer { flock(lock, LOCK_UN) }
    if files.fileExists(atPath: certificatePath), files.fileExists(atPath: keyPath) {
      let identity = try load(certificate: certificatePath, key: keyPath)
      return try RelayIdentity(
        certificatePEM: identity.certificatePEM, keyPEM: identity.keyPEM, isSelfSigned: true)
    }
    let made = try makeSelfSigned(now: now)
    // Each file is written whole under a temporary name and renamed into place; the key
    // first, readable by its owner only, so that a certificate never exists without it.
    try writeAtomically(made.keyPEM, to: keyPath)
    try writeAtomically(made.certificatePEM, to: certificatePath)
    return made
  }

  private static func writeAtomically(_ text: String, to path: String) throws(RelayTLSError) {
    let temporary = path + ".\(getpid()).tmp"
    guard
      FileManager.default.createFile(
        atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
    else { throw .unwritable(path: temporary, reason: "cannot create the file") }
    guard rename(temporary, path) == 0 else {
      let reason = String(cString: strerror(errno))
      unlink(temporary)
      throw .unwritable(path: path, reason: reason)
    }
  }

  /// A new P-256 key and a certificate for it, signed by itself, valid for ten years.
  public static func makeSelfSigned(now: Date = Date()) throws(RelayTLSError) -> RelayIdentity {
    let key = P256.Signing.PrivateKey()
    do {
      let name = try DistinguishedName {
        CommonName("Cowatch relay")
        OrganizationName("Cowatch")
      }
      let certificate = try Certificate(
        version: .v3, serialNumber: Certificate.SerialNumber(),
        publicKey: Certificate.PublicKey(key.publicKey),
        notValidBefore: now.addingTimeInterval(-3600),
        notValidAfter: now.addingTimeInterval(10 * 365 * 86400), issuer: name, subject: name,
        signatureAlgorithm: .ecdsaWithSHA256,
        extensions: try Certificate.Extensions {
          Critical(BasicConstraints.notCertificateAuthority)
          KeyUsage(digitalSignature: true)
          try ExtendedKeyUsage([.serverAuth])
        }, issuerPrivateKey: Certificate.PrivateKey(key))
      let pem = try certificate.serializeAsPEM().pemString
      return try RelayIdentity(
        certificatePEM: pem, keyPEM: key.pemRepresentation, isSelfSigned: true)
    } catch let error as RelayTLSError {
      throw error
    } catch {
      throw .invalid("cannot make a certificate: \(error)")
    }
  }

  /// `names`: the files they came from, to say which one is wrong.
  private init(
    certificatePEM: String, keyPEM: String, isSelfSigned: Bool,
    names: (certificate: String, key: String) = ("the certificate", "the key")
  ) throws(RelayTLSError) {
    let der: [UInt8]
    do {
      let certificate = try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem)
      der = try certificate.toDERBytes()
    } catch {
      throw .invalid("\(names.certificate) is not a PEM certificate")
    }
    do {
      _ = try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem)
    } catch {
      throw .invalid("\(names.key) is not a PEM private key")
    }
    self.certificatePEM = certificatePEM
    self.keyPEM = keyPEM
    self.isSelfSigned = isSelfSigned
    fingerprint = RelayFingerprint.of(der: der)
  }

  /// How long a closing connection waits for the peer's TLS close_notify. The protocol
  /// says goodbye itself (`bye`), so nothing is lost by not waiting the default 5 s, which
  /// held up every participant's exit (and a relay's every close) behind a slow peer.
  public static let shutdownTimeout = TimeAmount.milliseconds(300)

  /// The TLS context the relay serves with (TLS 1.2 and later).
  public func serverContext() throws(RelayTLSError) -> NIOSSLContext {
    do {
      let certificates = try NIOSSLCertificate.fromPEMBytes(Array(certificatePEM.utf8))
      let key = try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem)
      var configuration = TLSConfiguration.makeServerConfiguration(
        certificateChain: certificates.map { .certificate($0) }, privateKey: .privateKey(key))
      configuration.minimumTLSVersion = .tlsv12
      configuration.shutdownTimeout = RelayIdentity.shutdownTimeout
      return try NIOSSLContext(configuration: configuration)
    } catch {
      throw .invalid("cannot use the certificate and key: \(error)")
    }
  }
}
