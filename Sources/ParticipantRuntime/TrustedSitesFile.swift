import Foundation
import LinkConsent

/// The person's trusted sites on disk: `$XDG_CONFIG_HOME/cowatch/trusted-sites` (else
/// `~/.config/cowatch/trusted-sites`), beside `known-relays`. No file: the default list,
/// written out the first time the person adds a site (so that they can see and edit it).
public struct TrustedSitesFile: Sendable {
  public let path: String

  /// `path`: beside `known-relays` in Cowatch's configuration directory, as a person's
  /// other trust decisions are.
  public init(path: String) { self.path = path }

  /// The sites, and the lines left out as not a site's name (to be said, not fatal).
  public func load() -> (sites: TrustedSites, problems: [String]) {
    guard FileManager.default.fileExists(atPath: path) else { return (TrustedSites(), []) }
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
      return (TrustedSites(), ["\(path) cannot be read: using the default trusted sites"])
    }
    let (sites, problems) = TrustedSites.parse(text)
    return (sites, problems.map { "\(path), \($0): left out" })
  }

  /// Writes the sites; the reason in words when it cannot.
  public func save(_ sites: TrustedSites) -> String? {
    do {
      try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
      try sites.fileText.write(toFile: path, atomically: true, encoding: .utf8)
      return nil
    } catch {
      return "the trusted sites could not be kept in \(path): \(error.localizedDescription)"
    }
  }
}
