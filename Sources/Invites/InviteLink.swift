import WireProtocol

/// Everything a friend needs to join a room, in one word they can paste into a shell:
///
///     cowatch://ROOM@ADDRESS[,ADDRESS…][/fp=FINGERPRINT | /plain][/next=ADDRESS=FINGERPRINT,…]
///
/// - `ROOM`: the room's name; `ADDRESS`: where its relay listens (`HOST:PORT`, `[V6]:PORT`),
///   every address it may be reached at, best first: they are tried at once.
/// - `fp=`: the relay's certificate fingerprint, the 43 characters of `SHA256:…` written
///   base64url (`-` and `_` for `+` and `/`), so that the link has no character a shell
///   or a chat program treats specially; `plain`: a room run without TLS.
/// - `next=`: the successors' relays (rooms that outlive their host), each with its own
///   fingerprint: where the room may have gone on if the host's relay is gone.
///
/// Never a password: who has the link can reach the room, not enter a protected one.
public struct InviteLink: Hashable, Sendable {
  public var room: String
  public var addresses: [String]
  /// `SHA256:…` as people read it (standard base64); nil with `plain` or when unknown.
  public var fingerprint: String?
  /// The room's relay speaks plain TCP (`--no-tls`).
  public var plain: Bool
  /// Successors' relays, in order, each with its own certificate.
  public var successors: [RelayEndpoint]

  public init(
    room: String, addresses: [String], fingerprint: String?, plain: Bool = false,
    successors: [RelayEndpoint] = []
  ) {
    self.room = room
    self.addresses = addresses
    self.fingerprint = fingerprint
    self.plain = plain
    self.successors = successors
  }

  public static let scheme = "cowatch://"
  /// Addresses and successors a link carries at most, and its length at most.
  public static let maximumAddresses = 16
  public static let maximumLength = 4096

  /// The link as text.
  public var text: String {
    var link = Self.scheme + room + "@" + addresses.joined(separator: ",")
    if plain {
      link += "/plain"
    } else if let fingerprint, let url = Self.urlSafe(fingerprint) {
      link += "/fp=" + url
    }
    let next = successors.compactMap { s -> String? in
      guard let fingerprint = s.fingerprint else { return s.address }
      return Self.urlSafe(fingerprint).map { s.address + "=" + $0 }
    }
    if !next.isEmpty { link += "/next=" + next.joined(separator: ",") }
    return link
  }

  /// The link to the room once it runs on `relay` (a successor that took it over): that
  /// relay's address and certificate, no successors (they are named anew there).
  public func moved(to relay: RelayEndpoint) -> InviteLink {
    var link = self
    link.addresses = [relay.address]
    link.fingerprint = relay.fingerprint
    link.plain = relay.fingerprint == nil
    link.successors = []
    return link
  }

  /// Whether `text` is meant as a link (rather than a relay's address).
  public static func looksLikeLink(_ text: String) -> Bool { text.hasPrefix(scheme) }

  /// Reads a link; one clear error when it is not a whole one.
  public static func parse(_ text: String) throws(InviteLinkError) -> InviteLink {
    guard text.utf8.count <= maximumLength else { throw .init("it is longer than any link") }
    // As pasted from a chat: spaces, quotes or angle brackets around it are forgiven.
    let wrapping: Set<Character> = [" ", "\t", "\n", "\r", "\"", "'", "<", ">"]
    let link = String(
      text.drop(while: wrapping.contains).reversed().drop(while: wrapping.contains).reversed())
    guard link.hasPrefix(scheme) else { throw .init("it does not start with \(scheme)") }
    let parts = link.dropFirst(scheme.count).split(separator: "/", omittingEmptySubsequences: false)
    let head = parts[0]
    guard let at = head.lastIndex(of: "@") else {
      throw .init("the room is missing (cowatch://ROOM@ADDRESS…)")
    }
    let room = String(head[..<at])
    guard RoomName.isValid(room) else {
      throw .init("\"\(room)\" is not a room name (\(RoomName.rule))")
    }
    let addresses = head[head.index(after: at)...].split(
      separator: ",", omittingEmptySubsequences: false
    ).map(String.init)
    guard !addresses.isEmpty, addresses.allSatisfy({ !$0.isEmpty }) else {
      throw .init("an address is missing (cowatch://ROOM@HOST:PORT)")
    }
    guard addresses.count <= maximumAddresses else {
      throw .init("it names more than \(maximumAddresses) addresses")
    }
    for address in addresses where !Self.isAddress(address) {
      throw .init("\"\(address)\" is not an address (HOST:PORT)")
    }
    var invite = InviteLink(room: room, addresses: addresses, fingerprint: nil)
    var seen: Set<String> = []
    for part in parts.dropFirst() {
      let (key, value) = Self.split(part)
      guard seen.insert(key).inserted else { throw .init("it says \(key) twice") }
      switch (key, value) {
      case ("plain", nil):
        invite.plain = true
      case ("fp", let value?):
        guard let fingerprint = Self.fingerprint(fromURLSafe: value) else {
          throw .init("its fingerprint is cut short or mistyped")
        }
        invite.fingerprint = fingerprint
      case ("next", let value?):
        invite.successors = try Self.successors(value)
      case ("", nil) where part == parts.last:
        continue  // a trailing slash
      default:
        throw .init("\"\(part)\" means nothing in a link")
      }
    }
    if invite.plain, invite.fingerprint != nil {
      throw .init("it says both plain and a fingerprint")
    }
    // Every link a host gives names the certificate (or says plain): one without is a
    // link cut where a terminal wrapped it, which would only lead to a question about a
    // certificate nobody can check.
    if !invite.plain, invite.fingerprint == nil {
      throw .init(
        "it ends before the relay's fingerprint (/fp=…), as a link cut where a terminal wrapped it does: copy the whole link (i in the host's front shows it and copies it)"
      )
    }
    return invite
  }

  private static func split(_ part: Substring) -> (String, String?) {
    guard let equals = part.firstIndex(of: "=") else { return (String(part), nil) }
    return (String(part[..<equals]), String(part[part.index(after: equals)...]))
  }

  private static func successors(_ value: String) throws(InviteLinkError) -> [RelayEndpoint] {
    let entries = value.split(separator: ",", omittingEmptySubsequences: false)
    guard entries.count <= maximumAddresses else {
      throw .init("it names more than \(maximumAddresses) successors")
    }
    var relays: [RelayEndpoint] = []
    for entry in entries {
      let address: String
      var fingerprint: String?
      if let equals = entry.lastIndex(of: "=") {
        address = String(entry[..<equals])
        guard
          let parsed = Self.fingerprint(fromURLSafe: String(entry[entry.index(after: equals)...]))
        else { throw .init("a successor's fingerprint is cut short or mistyped") }
        fingerprint = parsed
      } else {
        address = String(entry)
      }
      guard Self.isAddress(address) else {
        throw .init("\"\(address)\" is not a successor's address (HOST:PORT)")
      }
      relays.append(RelayEndpoint(address: address, fingerprint: fingerprint))
    }
    return relays
  }

  /// `HOST:PORT` or `[V6]:PORT`, with a port 1–65535 and a host of plain characters.
  static func isAddress(_ address: String) -> Bool {
    guard address.count <= 300, let colon = address.lastIndex(of: ":") else { return false }
    guard let port = Int(address[address.index(after: colon)...]), (1...65535).contains(port)
    else { return false }
    var host = address[..<colon]
    if host.hasPrefix("[") {
      guard host.hasSuffix("]"), host.count > 2 else { return false }
      host = host.dropFirst().dropLast()
      return host.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }
    return !host.isEmpty
      && host.unicodeScalars.allSatisfy {
        ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
          || $0 == "-" || $0 == "."
      }
  }

  /// `SHA256:` + standard base64 (43 characters) → the 43 characters in base64url.
  public static func urlSafe(_ fingerprint: String) -> String? {
    guard fingerprint.hasPrefix("SHA256:") else { return nil }
    let body = fingerprint.dropFirst("SHA256:".count)
    guard body.count == 43, body.allSatisfy({ Self.standardAlphabet.contains($0) }) else {
      return nil
    }
    return String(body.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
  }

  /// base64url (43 characters, the last holding 2 bits) → `SHA256:` + standard base64.
  public static func fingerprint(fromURLSafe text: String) -> String? {
    guard text.count == 43, text.allSatisfy({ Self.urlAlphabet.contains($0) }),
      let last = text.last, "AEIMQUYcgkosw048".contains(last)
    else { return nil }
    return "SHA256:" + String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
  }

  private static let letters = Set(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
  private static let standardAlphabet = letters.union(["+", "/"])
  private static let urlAlphabet = letters.union(["-", "_"])
}
