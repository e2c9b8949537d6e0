/// The owner's commands, and how ownership passes on.
extension GroupTransition {
  /// Throws unless the participant at `index` owns the room.
  func requireOwner(_ index: Int) throws(Rejection) {
    guard state.control.owner == state.participants[index].id else {
      throw .notOwner(owner: state.owner?.name)
    }
  }

  /// Throws when only the owner may move the group and the participant is someone else.
  func requirePlaybackControl(_ index: Int) throws(Rejection) {
    guard state.control.playback == .owner,
      state.control.owner != state.participants[index].id
    else { return }
    throw .ownerControlsPlayback(owner: state.owner?.name)
  }

  mutating func setLocked(_ index: Int, _ locked: Bool) throws(Rejection) {
    try requireOwner(index)
    guard state.control.locked != locked else { return }
    state.control.locked = locked
    emit(.lockChanged(locked))
  }

  mutating func setKept(_ index: Int, _ kept: Bool) throws(Rejection) {
    try requireOwner(index)
    guard state.control.kept != kept else { return }
    state.control.kept = kept
    emit(.keptChanged(kept))
  }

  mutating func setPlaybackControl(_ index: Int, _ playback: PlaybackControl) throws(Rejection) {
    try requireOwner(index)
    guard state.control.playback != playback else { return }
    state.control.playback = playback
    emit(.playbackControlChanged(playback))
  }

  mutating func transferOwnership(_ index: Int, to target: ParticipantID) throws(Rejection) {
    try requireOwner(index)
    guard self.index(of: target) != nil else { throw .unknownParticipant(target) }
    guard target != state.participants[index].id else { return }
    state.control.owner = target
    emit(.ownerChanged(to: target))
  }

  mutating func remove(_ index: Int, _ target: ParticipantID) throws(Rejection) {
    try requireOwner(index)
    guard let targetIndex = self.index(of: target) else { throw .unknownParticipant(target) }
    guard targetIndex != index else {
      throw .invalidValue("you cannot remove yourself; leave the room instead")
    }
    let name = state.participants[targetIndex].name
    state.participants.remove(at: targetIndex)
    forget(target)
    forgetLender(target)
    emit(.removed(participant: target, name: name))
    startIfReady()
  }

  /// The first to enter an empty room owns it.
  mutating func claimOwnershipIfVacant(_ id: ParticipantID) {
    if state.control.owner == nil { state.control.owner = id }
  }

  /// After the owner left, the longest-present participant owns the room; an empty room
  /// returns to its open defaults, so that whoever enters it next starts afresh (kept, if it
  /// was: that is the relay's business once nobody is in it).
  mutating func passOwnershipIfVacant() {
    guard let owner = state.control.owner, index(of: owner) == nil else { return }
    if let next = state.participants.first {
      state.control.owner = next.id
      emit(.ownerChanged(to: next.id))
    } else {
      state.control = RoomControl(kept: state.control.kept)
    }
  }
}
