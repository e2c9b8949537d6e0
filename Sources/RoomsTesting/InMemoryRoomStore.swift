import PlaybackCoordination
import Rooms
import Synchronization
import WireProtocol

/// A ``RoomStore`` in this process's memory, for tests: what they restart relays from, and what a
/// relay with `--store memory` would write to if it wrote at all (it does not: that relay
/// keeps nothing across runs). It can be told to fail, to exercise a store that is down.
public final class InMemoryRoomStore: RoomStore {
  private struct Contents {
    var rooms: [String: StoredRoom] = [:]
    var written: [String: Int64] = [:]
    var clock: ClockReading?
    var failure: String?
    var batches = 0
    var rows = 0
  }
  private let contents = Mutex(Contents())

  public init() {}

  public func load() async throws(RoomStoreError) -> (rooms: [StoredRoom], clock: ClockReading?) {
    try contents.withLock { c throws(RoomStoreError) in
      if let failure = c.failure { throw RoomStoreError(failure) }
      return (c.rooms.keys.sorted().compactMap { c.rooms[$0] }, c.clock)
    }
  }

  public func write(_ batch: RoomStoreBatch) async throws(RoomStoreError) {
    try contents.withLock { c throws(RoomStoreError) in
      if let failure = c.failure { throw RoomStoreError(failure) }
      for name in batch.removed {
        c.rooms[name] = nil
        c.written[name] = nil
      }
      for change in batch.changed {
        let room = StoredRoom.applying(change, to: c.rooms[change.name])
        c.rooms[change.name] = room
        c.written[change.name] = batch.clock.wallNanoseconds
      }
      c.clock = batch.clock
      c.batches += 1
      c.rows += batch.rowCount
    }
  }

  public func removeRooms(writtenBefore wallNanoseconds: Int64) async throws(RoomStoreError)
    -> Int
  {
    try contents.withLock { c throws(RoomStoreError) in
      if let failure = c.failure { throw RoomStoreError(failure) }
      let old = c.written.filter {
        $0.value < wallNanoseconds && c.rooms[$0.key]?.state.control.kept != true
      }.map(\.key)
      for name in old {
        c.rooms[name] = nil
        c.written[name] = nil
      }
      return old.count
    }
  }

  /// While `reason` is not nil, every call fails with it.
  public func setFailure(_ reason: String?) { contents.withLock { $0.failure = reason } }

  /// What is stored now, without going through ``load()``.
  public var rooms: [StoredRoom] {
    contents.withLock { c in c.rooms.keys.sorted().compactMap { c.rooms[$0] } }
  }
  /// Batches and rows written so far.
  public var writes: (batches: Int, rows: Int) { contents.withLock { ($0.batches, $0.rows) } }
}
