import Foundation
import PlaybackCoordination

/// What a room remembers of its last night, on every member's machine, so that whoever
/// hosts the room's name next time can be offered to continue where the group left off
/// ("last time: Harbour Lights S1E3 at 21:14, with ann and bob — continue?"). A plain
/// value: built from the group state by ``NightRecorder``, written and read by
/// ``RoomMemoryFile``, kept in a folder by ``RoomMemoryFolder``. Every part is bounded, so
/// that a season of nights stays a few kilobytes and a file made bigger by hand is refused.
public struct RoomMemory: Hashable, Sendable {
  /// An item as the memory names it: ids to find it again in the catalog, titles to say
  /// what it was when the catalog no longer has it.
  public struct Watched: Hashable, Sendable, Codable {
    public var series: String
    public var seriesTitle: String
    public var item: String
    public var itemTitle: String

    public init(series: String, seriesTitle: String, item: String, itemTitle: String) {
      self.series = series
      self.seriesTitle = seriesTitle
      self.item = item
      self.itemTitle = itemTitle
    }

    enum CodingKeys: String, CodingKey {
      case series
      case seriesTitle = "series_title"
      case item
      case itemTitle = "item_title"
    }
  }

  /// One entry of the room's queue as it was, with who had put it there.
  public struct Queued: Hashable, Sendable, Codable {
    public var watched: Watched
    public var addedBy: String

    public init(_ watched: Watched, addedBy: String) {
      self.watched = watched
      self.addedBy = addedBy
    }

    enum CodingKeys: String, CodingKey {
      case watched
      case addedBy = "added_by"
    }
  }

  /// A reaction someone had at a moment of the film (`who` reacted `text` at `at` seconds
  /// of the item). Reactions arrive as messages of their own kind; whoever wires them in
  /// calls ``addMoment(who:text:at:)``.
  public struct Moment: Hashable, Sendable, Codable {
    public var who: String
    public var text: String
    public var at: Double

    public init(who: String, text: String, at: Double) {
      self.who = who
      self.text = text
      self.at = at
    }
  }

  /// An earlier night, in a line: when, what, with whom.
  public struct Night: Hashable, Sendable, Codable {
    public var when: Date
    public var label: String
    public var people: [String]

    public init(when: Date, label: String, people: [String]) {
      self.when = when
      self.label = label
      self.people = people
    }
  }

  /// The bounds of one memory: a file within them is a few kilobytes (about 40 KiB at the
  /// very most), and one beyond them is refused on reading.
  public static let maximumQueue = 100
  public static let maximumPeople = 64
  public static let maximumMoments = 200
  public static let maximumNights = 100
  /// Bytes of UTF-8 kept of one name, title or id.
  public static let maximumText = 200
  /// Bytes of UTF-8 kept of a reaction's text.
  public static let maximumMomentText = 280

  public var room: String
  public var watched: Watched
  /// Where the group was in the item, in seconds of film.
  public var position: Double
  public var queue: [Queued]
  /// Everyone who was there that night, this machine's person included, in order of
  /// arrival (``others(than:)`` leaves someone out, for "with ann and bob").
  public var people: [String]
  /// The wall time of the night's last moment remembered.
  public var when: Date
  /// Reactions of the night, oldest first; the oldest go beyond ``maximumMoments``.
  public var moments: [Moment]
  /// The nights before this one, oldest first, at most ``maximumNights``.
  public var nights: [Night]

  public init(
    room: String, watched: Watched, position: Double, queue: [Queued] = [],
    people: [String] = [], when: Date, moments: [Moment] = [], nights: [Night] = []
  ) {
    self.room = room
    self.watched = watched
    self.position = position
    self.queue = queue
    self.people = people
    self.when = when
    self.moments = moments
    self.nights = nights
    clamp()
  }

  /// "Harbour Lights S1E3": the series and the episode's code (or its title).
  public var label: String {
    let code = Self.episodeCode(watched.item)
    let episode = code ?? (watched.itemTitle.isEmpty ? watched.item : watched.itemTitle)
    return watched.seriesTitle.isEmpty ? episode : "\(watched.seriesTitle) \(episode)"
  }

  /// Everyone who was there but `name` (the person reading it), in order.
  public func others(than name: String) -> [String] { people.filter { $0 != name } }

  /// "last time: Harbour Lights S1E3 at 21:14, with ann and bob — continue?", as `reader`
  /// is asked it.
  public func offer(to reader: String) -> String {
    let others = others(than: reader)
    let with = others.isEmpty ? "" : ", with \(Self.list(others))"
    return "last time: \(label) at \(Self.clock(position))\(with) — continue?"
  }

  /// Adds a reaction of this night; past ``maximumMoments`` the oldest goes.
  public mutating func addMoment(who: String, text: String, at: Double) {
    Self.addMoment(who: who, text: text, at: at, to: &moments)
  }

  /// Adds a reaction to `moments`, bounded as a memory's are: for whoever gathers the
  /// night's reactions before there is a memory to hold them (``NightRecorder``).
  public static func addMoment(
    who: String, text: String, at: Double, to moments: inout [Moment]
  ) {
    guard at.isFinite, at >= 0 else { return }
    moments.append(
      Moment(who: cut(who, maximumText), text: cut(text, maximumMomentText), at: at))
    if moments.count > maximumMoments {
      moments.removeFirst(moments.count - maximumMoments)
    }
  }

  /// This night in a line, for the next night's ``nights``.
  public var summary: Night { Night(when: when, label: label, people: people) }

  /// Every bound applied: what is longer is cut, what is more is dropped (the oldest
  /// moments and nights, the last queue entries and people).
  mutating func clamp() {
    func cut(_ s: String) -> String { Self.cut(s, Self.maximumText) }
    room = cut(room)
    watched = watched.clamped
    if !position.isFinite || position < 0 { position = 0 }
    // Whole seconds: what the file's dates keep.
    when = Date(timeIntervalSince1970: when.timeIntervalSince1970.rounded(.down))
    queue = queue.prefix(Self.maximumQueue).map {
      Queued($0.watched.clamped, addedBy: cut($0.addedBy))
    }
    people = Array(people.prefix(Self.maximumPeople).map(cut))
    moments = moments.suffix(Self.maximumMoments).map {
      Moment(who: cut($0.who), text: Self.cut($0.text, Self.maximumMomentText), at: $0.at)
    }
    nights = nights.suffix(Self.maximumNights).map {
      Night(
        when: $0.when, label: cut($0.label),
        people: Array($0.people.prefix(Self.maximumPeople).map(cut)))
    }
  }

  /// `s` cut to at most `bytes` of UTF-8, on a character's boundary.
  static func cut(_ s: String, _ bytes: Int) -> String {
    DisplayText.prefix(s, maximumBytes: bytes)
  }

  /// "ann", "ann and bob", "ann, bob and carl".
  static func list(_ names: [String]) -> String {
    guard names.count > 1 else { return names.first ?? "" }
    return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
  }

  /// 21:14, 1:02:03: a film position as people say it.
  public static func clock(_ seconds: Double) -> String {
    let total = Int(max(0, seconds.isFinite ? seconds : 0))
    let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
    let two = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
    return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
  }

  /// `S1E3` for an id ending in `s1e3` (as the front labels episodes), else nil.
  static func episodeCode(_ id: String) -> String? {
    let last = id.split(separator: "/").last.map(String.init) ?? id
    let code = last.uppercased()
    guard
      code.wholeMatch(of: /S[0-9]+E[0-9]+/) != nil
    else { return nil }
    return code
  }
}

extension RoomMemory.Watched {
  var clamped: Self {
    Self(
      series: RoomMemory.cut(series, RoomMemory.maximumText),
      seriesTitle: RoomMemory.cut(seriesTitle, RoomMemory.maximumText),
      item: RoomMemory.cut(item, RoomMemory.maximumText),
      itemTitle: RoomMemory.cut(itemTitle, RoomMemory.maximumText))
  }
}
