import PlaybackCoordination

/// How this participant's player reads a link's title and duration, before the link is
/// started or queued for everyone (mpv does: `MpvLinkProbe`). Absent for a player that
/// cannot play links (the simulated one): then starting or queueing one is refused in
/// words.
public struct LinkReader: Sendable {
  /// The link's item (the link as its id, its title, its duration), or why not.
  public var read: @Sendable (String) async -> Result<ItemInfo, LinkReadError>

  public init(read: @escaping @Sendable (String) async -> Result<ItemInfo, LinkReadError>) {
    self.read = read
  }
}

/// Why a link cannot be watched, in words a person can act on.
public struct LinkReadError: Error, Hashable, Sendable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }

  /// Said when this participant's player cannot play links at all (the simulated one).
  public static func noLinkPlayer(for link: String) -> LinkReadError {
    LinkReadError(
      "this player cannot play links: join with --player mpv to watch \(LinkItem.host(of: link))")
  }
}
