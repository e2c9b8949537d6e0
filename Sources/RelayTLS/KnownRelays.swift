import Foundation

/// The relays a person has trusted on first use, as SSH's `known_hosts`: one line per
/// relay, `HOST:PORT SHA256:…`, in `$XDG_CONFIG_HOME/cowatch/known-relays` (else
/// `~/.config/cowatch/known-relays`).
public struct KnownRelays: Sendable {
  public let path: String

  public init(path: String = KnownRelays.defaultPath()) {
    self.path = path
  }

  public static func defaultPath(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    // $HOME first, as every other program does (Foundation's home directory is the
    // password database's, which ignores a HOME set for a test or a sandbox).
    let home =
      environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
      ?? FileManager.default.homeDirectoryForCurrentUser.path
    let base =
      environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (home as NSString).appendingPathComponent(".config")
    return ((base as NSString).appendingPathComponent("cowatch") as NSString)
      .appendingPathComponent("known-relays")
  }

  /// The fingerprint remembered for `endpoint`, if any. Lines that are not
  /// `ENDPOINT FINGERPRINT` are ignored (a hand-edited file must not lock anyone out).
  public func fingerprint(for endpoint: String) -> String? {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: " ", omittingEmptySubsequences: true)
      guard parts.count == 2, parts[0] == endpoint else { continue }
      return RelayFingerprint.parse(String(parts[1]))
    }
    return nil
  }

  /// Remembers `fingerprint` for `endpoint` (a later one for the same relay replaces it).
  public func remember(_ fingerprint: String, for endpoint: String) throws(RelayTLSError) {
    let existing = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    var lines = existing.split(separator: "\n").map(String.init).filter {
      $0.split(separator: " ").first.map(String.init) != endpoint
    }
    lines.append("\(endpoint) \(fingerprint)")
    do {
      try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
      try (lines.joined(separator: "\n") + "\n").write(
        toFile: path, atomically: true, encoding: .utf8)
    } catch {
      throw .unwritable(path: path, reason: error.localizedDescription)
    }
  }
}
