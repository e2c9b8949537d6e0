/// What is asked of the room's shared queue.
public enum QueueAction: Hashable, Sendable {
  case add(ItemID)
  case remove(QueueRef)
  /// Move the entry to a place (from 1).
  case move(QueueRef, toPlace: Int)
  case clear
  /// Switch everyone to the entry now: asked first while something is watched, unless
  /// `confirmed`.
  case play(QueueRef, confirmed: Bool = false)
}

/// An entry of the queue: at a place as `status` lists it (from 1: the entry there when
/// the action is performed), or by its number, as a front that shows the queue knows it.
public enum QueueRef: Hashable, Sendable {
  case place(Int)
  case entry(UInt64)
}
