/// An mpv release, as mpv names itself (`mpv --version`'s first line, the `mpv-version`
/// property): `mpv 0.35.1`, `mpv v0.38.0`, `mpv v0.39.0-dirty`, `mpv v0.40.0-45-gabc123`.
///
/// Cowatch's commands are checked against mpv's interface changes from 0.34 to 0.40 (see
/// ``MpvCommand``); an mpv older than ``oldestSupported`` is refused in one line rather than
/// failing later, mid-evening, on a command it reads another way.
public struct MpvVersion: Hashable, Sendable, Comparable, CustomStringConvertible {
  public var major: Int
  public var minor: Int
  public var patch: Int

  /// The oldest mpv whose reading of every command Cowatch sends is known (Ubuntu 22.04's).
  public static let oldestSupported = MpvVersion(major: 0, minor: 34, patch: 0)
  /// The newest mpv whose interface changes were checked against Cowatch's commands.
  public static let newestChecked = MpvVersion(major: 0, minor: 40, patch: 0)

  public init(major: Int, minor: Int, patch: Int) {
    self.major = major
    self.minor = minor
    self.patch = patch
  }

  /// The version in `text`, the first `mpv` word followed by `[v]MAJOR.MINOR[.PATCH]`; nil
  /// when there is none (a build from git that names only its commit).
  public init?(parsing text: some StringProtocol) {
    let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
    guard let index = words.firstIndex(where: { $0 == "mpv" }), index + 1 < words.count
    else { return nil }
    var word = Substring(words[index + 1])
    if word.hasPrefix("v") { word = word.dropFirst() }
    let numbers = word.prefix { $0.isNumber || $0 == "." }.split(separator: ".")
    guard numbers.count >= 2, numbers.count <= 3,
      let major = Int(numbers[0]), let minor = Int(numbers[1]),
      major < 1000, minor < 1000
    else { return nil }
    let patch = numbers.count == 3 ? Int(numbers[2]) : 0
    guard let patch, patch < 1000 else { return nil }
    self.init(major: major, minor: minor, patch: patch)
  }

  public var isSupported: Bool { self >= Self.oldestSupported }

  public var description: String { "\(major).\(minor).\(patch)" }

  public static func < (a: MpvVersion, b: MpvVersion) -> Bool {
    (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
  }
}
