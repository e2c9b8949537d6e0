import PlaybackCoordination

/// Which `state` lines headless mode prints. A program reads a `state` line for where the
/// group is (the item, its timeline, its status, who it waits for): one is printed when
/// that changes, and after every welcome, not for every step of the room — each player's
/// link figures (`reported` steps, about 1.5 a second in a room of four) change none of it.
/// Its `originator` is whoever made the change it shows: the last change of the update
/// other than a report, else (the first line after a welcome) whoever last moved the
/// timeline.
public struct HeadlessStateLines: Sendable {
  /// The last line printed, without its `sequence` and `originator`.
  private var shown: OrderedJSON?

  public init() {}

  /// A welcome: the next state is printed whatever it is (a program reconnected by the
  /// relay learns where the group is).
  public mutating func welcomed() { shown = nil }

  /// The line to print for `state`, reached through `changes`, or nil when a program would
  /// read nothing new in it.
  public mutating func line(for state: GroupState, changes: [ChangeEvent]) -> OrderedJSON? {
    let visible = HeadlessRunner.stateLine(state, sequence: false, originator: false)
    guard visible != shown else { return nil }
    shown = visible
    let maker =
      changes.last { !$0.kind.isQuiet } ?? state.session?.lastPlaybackChange
      ?? state.lastChange
    return HeadlessRunner.stateLine(state, change: maker)
  }
}
