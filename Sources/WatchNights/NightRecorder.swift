import Foundation
import PlaybackCoordination

/// Decides when a participant writes its room's memory, from what it sees of the group: at
/// once when what the group watches, its queue, who is there or whether it is paused (and
/// where) changes; while it plays, its position, and the night's reactions, at most every
/// ``positionInterval`` seconds; and at the end, whatever was not written yet. A night with nothing watched
/// writes nothing, so that the memory of the last real night stays. A value: ``saw(_:position:at:wall:)``
/// returns the memory to write, if any, and ``written(_:at:)`` is told when it was.
public struct NightRecorder: Sendable {
  /// Seconds between writes of a position that only moved with playback.
  public static let positionInterval: Double = 30

  public let room: String
  /// The nights before this one (the previous memory's, and the previous memory itself).
  let earlier: [RoomMemory.Night]
  /// Everyone seen in the room tonight, in order of arrival.
  public private(set) var people: [String] = []
  public private(set) var moments: [RoomMemory.Moment] = []
  /// The memory as it was last written, and when (local seconds).
  public private(set) var written: RoomMemory?
  private var writtenAt: Double?
  /// The memory as it was last seen: what ``finish()`` writes.
  public private(set) var latest: RoomMemory?

  /// `previous`: the room's memory as this machine had it when the night began.
  public init(room: String, previous: RoomMemory?) {
    self.room = room
    earlier =
      previous.map { Array(($0.nights + [$0.summary]).suffix(RoomMemory.maximumNights)) }
      ?? []
  }

  /// The group as this participant's replica has it at local time `seconds` (`position`:
  /// where the group is by its clock estimate, nil for the timeline's own anchor). Returns
  /// the memory to write now, or nil.
  public mutating func saw(
    _ state: GroupState, position: Double?, at seconds: Double, wall: Date
  ) -> RoomMemory? {
    for person in state.participants where !people.contains(person.name) {
      if people.count < RoomMemory.maximumPeople { people.append(person.name) }
    }
    guard let session = state.session else { return nil }
    let paused = session.timeline.rate == 0
    let at = min(max(0, position ?? session.timeline.itemTime), session.item.duration)
    var memory = RoomMemory(
      room: room,
      watched: RoomMemory.Watched(
        series: session.series.id, seriesTitle: session.series.title,
        item: session.item.id.rawValue, itemTitle: session.item.title),
      position: (at * 10).rounded(.down) / 10,
      queue: state.queue.map { entry in
        RoomMemory.Queued(
          RoomMemory.Watched(
            series: entry.series.id, seriesTitle: entry.series.title, item: entry.item.rawValue,
            itemTitle: entry.info?.title ?? ""),
          addedBy: entry.addedByName)
      },
      people: people, when: wall, moments: moments, nights: earlier)
    memory.clamp()
    latest = memory
    latestPaused = paused
    guard let written, let writtenAt else { return memory }
    let shapeChanged =
      written.watched != memory.watched || written.queue != memory.queue
      || written.people != memory.people
      || (paused && written.position != memory.position)
      || paused != writtenPaused
    if shapeChanged { return memory }
    // A playing position and the night's reactions are not urgent: they go with the next
    // write, or at most every ``positionInterval``.
    let moved = !paused && written.position != memory.position
    if moved || written.moments != memory.moments,
      seconds - writtenAt >= Self.positionInterval
    {
      return memory
    }
    return nil
  }

  /// Whether the group was paused in the latest memory seen, and in the one written.
  private var latestPaused: Bool?
  private var writtenPaused: Bool?

  /// `memory` was written at local time `seconds`.
  public mutating func written(_ memory: RoomMemory, at seconds: Double) {
    written = memory
    writtenAt = seconds
    writtenPaused = latestPaused
  }

  /// A reaction of tonight: kept with the memory (bounded), written with the next write.
  public mutating func addMoment(who: String, text: String, at: Double) {
    RoomMemory.addMoment(who: who, text: text, at: at, to: &moments)
    latest?.moments = moments
  }

  /// The last memory seen, when it differs from the one written: what to write as the
  /// night ends (quitting, leaving, the input's end).
  public func finish() -> RoomMemory? {
    guard let latest else { return nil }
    guard let written else { return latest }
    var same = latest
    same.when = written.when
    return same == written ? nil : latest
  }
}
