import PlaybackCoordination

/// What `queue …` asks of the room's shared queue. Places count from 1, as `status` lists
/// the queue; the entry at that place when the action is performed is the one changed.
public enum QueueAction: Hashable, Sendable {
  case add(ItemID)
  case remove(Int)
  case move(Int, to: Int)
  case clear
  case play(Int)
}
