import PlaybackCoordination
import Synchronization

/// How this participant's player reads a link's title and duration, before the link is
/// started or queued for everyone (mpv does: `MpvLinkProbe`). Absent for a player that
/// cannot play links (the simulated one): then starting or queueing one is refused in
/// words.
public struct LinkReader: Sendable {
  /// The link's item (the link as its id, its title, its duration), or why not. A link
  /// read already is not read again (a front reads it to ask the person, then the
  /// performer starts it): the last ``remembered`` links are kept.
  public let read: @Sendable (String) async -> Result<ItemInfo, LinkReadError>

  /// How many links read are kept.
  public static let remembered = 32

  public init(read: @escaping @Sendable (String) async -> Result<ItemInfo, LinkReadError>) {
    let kept = Mutex<[ItemInfo]>([])
    self.read = { link in
      if let item = kept.withLock({ $0.first { $0.id.rawValue == link } }) { return .success(item) }
      let result = await read(link)
      if case .success(let item) = result {
        kept.withLock { items in
          items.removeAll { $0.id == item.id }
          items.append(item)
          if items.count > Self.remembered { items.removeFirst() }
        }
      }
      return result
    }
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
