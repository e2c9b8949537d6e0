import Foundation
import PlaybackCoordination
import Testing
import WatchNights

private let harbour = SeriesInfo(
  id: "harbour", title: "Harbour Lights",
  items: [
    ItemInfo(id: ItemID("harbour/s1e3"), title: "The Storm", duration: 2700),
    ItemInfo(id: ItemID("harbour/s1e4"), title: "Low Tide", duration: 2700),
  ])

/// The group watching S1E3 at `position` (playing or paused), with `names` in the room.
private func group(
  _ names: [String], at position: Double, playing: Bool, queue: [String] = []
) -> GroupState {
  GroupState(
    participants: names.enumerated().map {
      Participant(id: ParticipantID("p\($0.offset)"), name: $0.element)
    },
    session: WatchSession(
      id: 1, series: harbour, item: harbour.items[0],
      timeline: Timeline(
        itemTime: position, groupTime: GroupInstant(seconds: 0), rate: playing ? 1 : 0),
      intendedRate: playing ? 1 : 0),
    queue: queue.enumerated().map {
      QueueEntry(
        id: UInt64($0.offset + 1), series: harbour, item: ItemID($0.element),
        addedBy: ParticipantID("p0"), addedByName: names[0])
    })
}

@Suite("When a participant writes its room's memory")
struct NightRecorderTests {
  let wall = Date(timeIntervalSince1970: 1_795_556_400)

  /// Feeds `recorder` a look and marks what it returns as written.
  func look(
    _ recorder: inout NightRecorder, _ state: GroupState, position: Double? = nil, at t: Double
  ) -> RoomMemory? {
    let due = recorder.saw(state, position: position, at: t, wall: wall.addingTimeInterval(t))
    if let due { recorder.written(due, at: t) }
    return due
  }

  @Test("nothing watched, nothing written: the last real night stays")
  func nothingWatched() {
    var recorder = NightRecorder(room: "club", previous: nil)
    #expect(
      look(
        &recorder, GroupState(participants: [Participant(id: ParticipantID("p0"), name: "ann")]),
        at: 0) == nil)
    #expect(recorder.finish() == nil)
  }

  @Test(
    "the item, the queue and who came are written at once; a playing position every 30 s; a pause and its position at once"
  )
  func throttled() throws {
    var recorder = NightRecorder(room: "club", previous: nil)
    let first = try #require(
      look(&recorder, group(["ann"], at: 0, playing: true), position: 0, at: 0))
    #expect(first.watched.item == "harbour/s1e3")
    #expect(first.people == ["ann"])
    // Playing on: only every 30 s.
    #expect(look(&recorder, group(["ann"], at: 0, playing: true), position: 10, at: 10) == nil)
    #expect(look(&recorder, group(["ann"], at: 0, playing: true), position: 29, at: 29) == nil)
    #expect(
      look(&recorder, group(["ann"], at: 0, playing: true), position: 30, at: 30)?.position == 30)
    // bob comes: at once, and he stays among the people after he goes.
    #expect(
      look(&recorder, group(["ann", "bob"], at: 0, playing: true), position: 31, at: 31)?.people
        == ["ann", "bob"])
    #expect(look(&recorder, group(["ann"], at: 0, playing: true), position: 32, at: 32) == nil)
    // Queued: at once.
    let queued = look(
      &recorder, group(["ann"], at: 0, playing: true, queue: ["harbour/s1e4"]), position: 33, at: 33
    )
    #expect(queued?.queue.map(\.watched.item) == ["harbour/s1e4"])
    #expect(queued?.queue.first?.addedBy == "ann")
    // Paused: at once, and a seek while paused too.
    #expect(
      look(&recorder, group(["ann"], at: 40, playing: false, queue: ["harbour/s1e4"]), at: 40)?
        .position == 40)
    #expect(
      look(&recorder, group(["ann"], at: 40, playing: false, queue: ["harbour/s1e4"]), at: 41)
        == nil)
    #expect(
      look(&recorder, group(["ann"], at: 1274, playing: false, queue: ["harbour/s1e4"]), at: 42)?
        .position == 1274)
    // Nothing new: nothing to write at the end.
    #expect(recorder.finish() == nil)
    // A reaction waits for the next write, 30 s after the last at most.
    recorder.addMoment(who: "bob", text: "ha", at: 1274)
    #expect(
      look(&recorder, group(["ann"], at: 1274, playing: false, queue: ["harbour/s1e4"]), at: 50)
        == nil)
    #expect(
      look(&recorder, group(["ann"], at: 1274, playing: false, queue: ["harbour/s1e4"]), at: 72)?
        .moments.count == 1)
    // Playing again, a few seconds: the end writes where it got to.
    _ = look(
      &recorder, group(["ann"], at: 1274, playing: true, queue: ["harbour/s1e4"]), position: 1274,
      at: 80)
    _ = recorder.saw(
      group(["ann"], at: 1274, playing: true, queue: ["harbour/s1e4"]), position: 1280, at: 86,
      wall: wall)
    #expect(recorder.finish()?.position == 1280)
  }

  @Test("a new night keeps the earlier ones in a line each, and the reactions of this one")
  func nights() throws {
    let previous = sampleMemory()
    var recorder = NightRecorder(room: "club", previous: previous)
    recorder.addMoment(who: "ann", text: "🎉", at: 12)
    let memory = try #require(look(&recorder, group(["bob"], at: 5, playing: false), at: 0))
    #expect(memory.nights.count == previous.nights.count + 1)
    #expect(memory.nights.last == previous.summary)
    #expect(memory.moments == [RoomMemory.Moment(who: "ann", text: "🎉", at: 12)])
    #expect(memory.people == ["bob"])
  }
}
