import PlaybackCoordination

/// A member asks the room who lends `item` (the group's id): it has no copy of its own.
public struct LendRequest: GroupMessage, Hashable {
  public static let kind: MessageKind = "lend-request"
  public var item: String
  public init(item: String) { self.item = item }
}

/// A member's answer, to the asker alone: a grant (`url`, over TLS with the lender's
/// certificate `fingerprint`; `subtitles`, the addresses of the external subtitle files
/// lent with it) or why not.
public struct LendAnswer: GroupMessage, Hashable {
  public static let kind: MessageKind = "lend-answer"
  public var item: String
  public var url: String?
  public var fingerprint: String?
  public var refusal: String?
  public var subtitles: [String]?
  public init(
    item: String, url: String? = nil, fingerprint: String? = nil, refusal: String? = nil,
    subtitles: [String]? = nil
  ) {
    self.item = item
    self.url = url
    self.fingerprint = fingerprint
    self.refusal = refusal
    self.subtitles = subtitles
  }
}
