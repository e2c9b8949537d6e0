extension Timeline {
  /// The same line `offset` seconds of item time ahead (negative: behind): what a player
  /// with a personal offset follows. A line that would start before the item's beginning
  /// holds at 0 until it reaches it, so that a player running behind starts that much
  /// later rather than at an item time that does not exist.
  public func shifted(by offset: Double) -> Timeline {
    guard offset != 0 else { return self }
    var shifted = self
    shifted.itemTime += offset
    shifted.priorItemTime += offset
    if shifted.itemTime < 0, rate > 0 {
      let start = groupTime.advanced(bySeconds: -shifted.itemTime / rate)
      return Timeline(itemTime: 0, groupTime: start, rate: rate)
    }
    shifted.itemTime = max(0, shifted.itemTime)
    shifted.priorItemTime = max(0, shifted.priorItemTime)
    return shifted
  }
}

extension GroupState {
  /// The state as a player with a personal offset of `offset` seconds follows it: the
  /// session's timeline shifted (see ``Timeline/shifted(by:)``), everything else as is.
  public func shifted(by offset: Double) -> GroupState {
    guard offset != 0, session != nil else { return self }
    var shifted = self
    shifted.session?.timeline = session!.timeline.shifted(by: offset)
    return shifted
  }
}
