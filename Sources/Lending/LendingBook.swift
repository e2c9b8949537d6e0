/// A lender's record of who may read what: a member without the group's item asks, and
/// is given a grant — a path with a secret of its own — that reads that item only, for as
/// long as that person is a member and the lender lends. The lender's endpoint serves a
/// request only through a grant it finds here.
///
/// Pure: the runtime brings the facts (whether the asker is a member, which items the
/// group watches now or next, whether this machine has the item) and a fresh secret from
/// the system's CSPRNG, and performs what comes back (an answer to send, connections to
/// close).
public struct LendingBook: Sendable {
  /// One member's leave to read one item.
  public struct Grant: Hashable, Sendable {
    /// The secret part of the path (hex, 128 bits).
    public var token: String
    /// The group's id of the item.
    public var item: String
    /// Who may read it (their participant id) and what they are called.
    public var borrower: String
    public var borrowerName: String
    /// The path the borrower reads: `/TOKEN/NAME`.
    public var path: String
    /// The paths of the item's external subtitle files, those the lender has beside it:
    /// `/TOKEN/sub/NAME`, read through the same grant.
    public var subtitlePaths: [String] = []
  }

  /// What comes of a request.
  public enum Answer: Hashable, Sendable {
    case granted(Grant)
    /// Not lent, in words the asker is shown.
    case refused(String)
  }

  /// Whether this member lends at all (`cowatch host` does by default; `join --lend`).
  public private(set) var lends: Bool
  private var grants: [String: Grant] = [:]

  /// A borrower reads one item at a time, and perhaps the next: a few grants each, and
  /// a bounded table in all however many ask.
  public static let maximumGrantsPerBorrower = 4
  public static let maximumGrants = 64

  public init(lends: Bool) { self.lends = lends }

  /// What a borrower is told when the lender takes its grant back by no longer lending.
  public static let stoppedLending = "they stopped lending their copies"

  /// Every grant given and not revoked.
  public var all: [Grant] {
    grants.values.sorted { ($0.borrowerName, $0.item) < ($1.borrowerName, $1.item) }
  }

  /// Who reads which item from this member now (for the people pane).
  public var borrowers: [String: [String]] {
    Dictionary(grouping: grants.values, by: \.item).mapValues {
      Array(Set($0.map(\.borrowerName))).sorted()
    }
  }

  /// A member asks to read `item`. `watched`: the items the group watches now or queued
  /// next (only those are lent); `has`: whether this machine has the item; `name`: what
  /// the file is called (the end of the path, for the player's title). `token`: 32 hex
  /// digits fresh from the CSPRNG, used if a grant is made. `subtitles`: the names of the
  /// external subtitle files lent with the item (at most ``maximumSubtitles``).
  public mutating func request(
    item: String, from borrower: String, named borrowerName: String, isMember: Bool,
    watched: Set<String>, has: Bool, name: String, token: String, subtitles: [String] = []
  ) -> Answer {
    guard lends else { return .refused("they do not lend their copies") }
    guard isMember else { return .refused("only members of the room borrow") }
    guard watched.contains(item) else {
      return .refused("only what the group watches, or plays next, is lent")
    }
    guard has else { return .refused("they have no copy of it") }
    if let given = grants.values.first(where: { $0.item == item && $0.borrower == borrower }) {
      return .granted(given)
    }
    guard Self.isToken(token) else { return .refused("no secret for a grant") }
    guard grants.values.filter({ $0.borrower == borrower }).count < Self.maximumGrantsPerBorrower
    else { return .refused("already reading \(Self.maximumGrantsPerBorrower) items") }
    guard grants.count < Self.maximumGrants else {
      return .refused("already lending to \(Self.maximumGrants) readers")
    }
    let grant = Grant(
      token: token, item: item, borrower: borrower, borrowerName: borrowerName,
      path: "/\(token)/\(Self.pathName(name))",
      subtitlePaths: Self.subtitleNames(subtitles).map { "/\(token)/sub/\($0)" })
    grants[token] = grant
    return .granted(grant)
  }

  /// The grant a request's path reads through, if any: the token is compared in time that
  /// does not depend on where it differs.
  public func grant(forPath path: String) -> Grant? {
    let parts = path.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].isEmpty, Self.isToken(String(parts[1])) else { return nil }
    for (token, grant) in grants where Self.sameBytes(token, String(parts[1])) {
      return Self.sameBytes(grant.path, path) ? grant : nil
    }
    return nil
  }

  /// The grant one of whose subtitle files `path` names, and which (its place in
  /// ``Grant/subtitlePaths``), if any (compared as ``grant(forPath:)``).
  public func grant(forSubtitlePath path: String) -> (grant: Grant, index: Int)? {
    let parts = path.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].isEmpty, Self.isToken(String(parts[1])) else { return nil }
    for (token, grant) in grants where Self.sameBytes(token, String(parts[1])) {
      return grant.subtitlePaths.firstIndex { Self.sameBytes($0, path) }.map { (grant, $0) }
    }
    return nil
  }

  /// A film's subtitles: a language or two, or a few; more are not lent.
  public static let maximumSubtitles = 8

  /// Subtitle file names as paths' last parts, the first few, none twice.
  static func subtitleNames(_ names: [String]) -> [String] {
    var seen: Set<String> = []
    return names.prefix(maximumSubtitles).map(pathName).filter { seen.insert($0).inserted }
  }

  /// `borrower` left the room (or was removed): what they were given goes. Returns it, so
  /// that the reads under way through it are cut.
  public mutating func revoke(borrower: String) -> [Grant] {
    let gone = grants.values.filter { $0.borrower == borrower }
    for grant in gone { grants[grant.token] = nil }
    return gone.sorted { $0.item < $1.item }
  }

  /// The group moved on: grants of items it no longer watches (nor plays next) go.
  public mutating func keep(only watched: Set<String>) -> [Grant] {
    let gone = grants.values.filter { !watched.contains($0.item) }
    for grant in gone { grants[grant.token] = nil }
    return gone.sorted { ($0.item, $0.borrower) < ($1.item, $1.borrower) }
  }

  /// Lending turned on or off; off takes back every grant (returned).
  public mutating func setLends(_ on: Bool) -> [Grant] {
    lends = on
    guard !on else { return [] }
    let gone = all
    grants = [:]
    return gone
  }

  static func isToken(_ token: String) -> Bool {
    token.utf8.count == 32
      && token.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
  }

  /// The file's name as a path's last part: letters, digits and `._-`; the rest `_`.
  public static func pathName(_ name: String) -> String {
    let safe = String(
      name.unicodeScalars.prefix(120).map { scalar -> Character in
        let ok =
          scalar.isASCII
          && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
            || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar))
        return ok ? Character(scalar) : "_"
      })
    return safe.isEmpty ? "item" : safe
  }

  /// Whether two secrets (or paths holding one) are the same, compared in time that does
  /// not depend on where they differ.
  public static func sameBytes(_ a: String, _ b: String) -> Bool {
    let (x, y) = (Array(a.utf8), Array(b.utf8))
    guard x.count == y.count else { return false }
    var difference: UInt8 = 0
    for index in x.indices { difference |= x[index] ^ y[index] }
    return difference == 0
  }
}
