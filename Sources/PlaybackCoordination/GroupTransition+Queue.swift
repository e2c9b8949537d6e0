/// The room's shared queue: what the group watches next, built by everyone who may move
/// the group's playback (under owner-only control, the owner alone). Entries are named by
/// their number, so that edits made at once by two people are applied one after the
/// other, each to the entry its sender saw, the same way on every replica.
extension GroupTransition {
  mutating func queueAdd(_ index: Int, series: SeriesInfo, item: ItemID) throws(Rejection) {
    try requirePlaybackControl(index)
    _ = try validate(series, item: item)
    guard state.queue.count < GroupState.maximumQueueEntries else {
      throw .invalidValue("the queue holds at most \(GroupState.maximumQueueEntries) items")
    }
    let participant = state.participants[index]
    state.queueCounter += 1
    let entry = QueueEntry(
      id: state.queueCounter, series: series, item: item, addedBy: participant.id,
      addedByName: participant.name)
    let bytes = state.queue.reduce(entry.estimatedBytes) { $0 + $1.estimatedBytes }
    guard bytes <= GroupState.maximumQueueBytes else {
      state.queueCounter -= 1
      throw .invalidValue(
        "the queue is full (about \(GroupState.maximumQueueBytes / 1024) KiB of titles): remove something first"
      )
    }
    state.queue.append(entry)
    emit(.queueAdded(entry: entry.id, item: item))
  }

  mutating func queueRemove(_ index: Int, entry: UInt64) throws(Rejection) {
    try requirePlaybackControl(index)
    let place = try place(of: entry)
    let removed = state.queue.remove(at: place)
    emit(.queueRemoved(entry: entry, item: removed.item))
  }

  mutating func queueMove(_ index: Int, entry: UInt64, to: Int) throws(Rejection) {
    try requirePlaybackControl(index)
    let place = try place(of: entry)
    let moved = state.queue.remove(at: place)
    let target = min(max(0, to), state.queue.count)
    state.queue.insert(moved, at: target)
    guard target != place else {
      // Nothing moved: no change to tell.
      return
    }
    emit(.queueMoved(entry: entry, item: moved.item, to: target))
  }

  mutating func queueClear(_ index: Int) throws(Rejection) {
    try requirePlaybackControl(index)
    guard !state.queue.isEmpty else { return }
    state.queue = []
    emit(.queueCleared)
  }

  /// Watch an entry now: a switch when a session runs (the originator must be able to
  /// move the group), else a new session. Either way the entry leaves the queue.
  mutating func playQueued(_ index: Int, entry: UInt64) throws(Rejection) {
    let place = try place(of: entry)
    let queued = state.queue[place]
    guard let info = queued.info else { throw .unknownItem(queued.item) }
    if state.session == nil {
      try start(index, series: queued.series, item: queued.item)
      state.queue.remove(at: place)
      emit(.queuePlayed(entry: entry, from: nil, to: queued.item))
      return
    }
    let current = try requireMover(index, item: nil)
    state.queue.remove(at: place)
    // After the end of an episode, going on with another is watching on: it plays.
    // (Not while a ready check holds the group: it starts when the check ends.)
    if current.reachedEnd && current.readyCheck == nil {
      session.intendedRate = session.playbackRate
    }
    switchItem(to: info, of: queued.series)
    emit(.queuePlayed(entry: entry, from: current.item.id, to: queued.item))
    startIfReady()
  }

  /// At the end of an item: the queue's first entry, taken out of the queue, if any.
  mutating func takeFirstQueued() -> (QueueEntry, ItemInfo)? {
    while let first = state.queue.first {
      state.queue.removeFirst()
      if let info = first.info { return (first, info) }
    }
    return nil
  }

  private func place(of entry: UInt64) throws(Rejection) -> Int {
    guard let place = state.queue.firstIndex(where: { $0.id == entry }) else {
      throw .notInQueue(entry: entry)
    }
    return place
  }
}
