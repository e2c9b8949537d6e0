import WireProtocol

/// Where a relay keeps its rooms so that they outlive it: written to after every sequenced
/// step (in batches, off the path that forwards changes) and read at start.
///
/// Implementations: in memory (tests; `--store memory` keeps nothing across runs) and
/// SQLite (the default). A store only keeps and returns what it is given; what it means is
/// ``RelayCore``'s business.
public protocol RoomStore: Sendable {
  /// Every stored room, and the clocks of the last write (nil when nothing was written).
  func load() async throws(RoomStoreError) -> (rooms: [StoredRoom], clock: ClockReading?)
  /// Writes one batch, all of it or nothing.
  func write(_ batch: RoomStoreBatch) async throws(RoomStoreError)
  /// Removes rooms last written before `wallNanoseconds` (rooms whose relay stopped long
  /// ago and that nobody came back to), but not those whose owner asked for them to be kept
  /// (``RoomControl/kept``); returns how many.
  func removeRooms(writtenBefore wallNanoseconds: Int64) async throws(RoomStoreError) -> Int
}

/// A store that could not be read or written, with what went wrong.
public struct RoomStoreError: Error, Sendable, CustomStringConvertible, Hashable {
  public var description: String
  public init(_ description: String) { self.description = description }
}
