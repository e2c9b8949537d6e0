import Foundation

/// A certificate authority of a test's own (made with openssl), a relay certificate it
/// signs for `localhost` and 127.0.0.1, and a way to make Syncplay's client trust that
/// authority alone: Syncplay takes its trusted roots from Python's `certifi`, so a
/// `certifi` of the test's (first on `PYTHONPATH`) names the authority's file. Nothing
/// of the machine's own trust changes.
public struct TestCertificateAuthority: Sendable {
  public let authorityPath: String
  public let certificatePath: String
  public let keyPath: String
  /// Environment for a Syncplay client that trusts this authority only.
  public let syncplayEnvironment: [String: String]

  public init(in directory: URL) throws(HarnessError) {
    guard let openssl = SyncplayClientProcess.executable("openssl") else {
      throw HarnessError("openssl is needed to make test certificates")
    }
    let d = directory.path
    authorityPath = "\(d)/ca.pem"
    certificatePath = "\(d)/relay.pem"
    keyPath = "\(d)/relay.key"
    let extensions = "\(d)/relay.ext"
    do {
      try
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
        .write(toFile: extensions, atomically: true, encoding: .utf8)
    } catch {
      throw HarnessError("cannot write \(extensions): \(error.localizedDescription)")
    }
    let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    try HarnessError.run(
      openssl,
      ["req", "-x509"] + curve + [
        "-keyout", "\(d)/ca.key", "-out", authorityPath, "-days", "2", "-subj",
        "/CN=Cowatch test authority", "-addext", "basicConstraints=critical,CA:TRUE", "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
      ])
    try HarnessError.run(
      openssl,
      ["req"] + curve + ["-keyout", keyPath, "-out", "\(d)/relay.csr", "-subj", "/CN=localhost"])
    try HarnessError.run(
      openssl,
      [
        "x509", "-req", "-in", "\(d)/relay.csr", "-CA", authorityPath, "-CAkey", "\(d)/ca.key",
        "-CAcreateserial", "-out", certificatePath, "-days", "2", "-extfile", extensions,
      ])
    let certifi = directory.appendingPathComponent("python/certifi")
    do {
      try FileManager.default.createDirectory(at: certifi, withIntermediateDirectories: true)
      try "def where():\n    return \(Self.pythonString(authorityPath))\n".write(
        to: certifi.appendingPathComponent("__init__.py"), atomically: true, encoding: .utf8)
    } catch {
      throw HarnessError("cannot write a certifi for the test: \(error.localizedDescription)")
    }
    syncplayEnvironment = ["PYTHONPATH": directory.appendingPathComponent("python").path]
  }

  static func pythonString(_ text: String) -> String {
    "'"
      + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
      + "'"
  }

}
