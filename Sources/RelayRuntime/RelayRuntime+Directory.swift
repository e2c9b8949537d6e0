import Logging
import PlaybackCoordination
import Rooms
import Synchronization
import WireProtocol

/// Running rooms that several relays share through one database (a ``RoomDirectory``): a
/// hello for a room this relay does not run waits while the relay claims the room's lease;
/// then the room is brought back from the store and the hello goes on, or the hello is
/// answered with a `redirect` to the relay that owns it. Leases are renewed while the relay
/// lives; a room whose lease is lost, or cannot be renewed in time, is given up at once, so
/// that no room ever runs on two relays.
extension RelayRuntime {
  /// Messages a connection may send while its hello waits for a claim (it should wait for
  /// the welcome; a few pings are all a well-behaved participant sends).
  static let maximumHeldMessages = 16

  /// Whether `message` waits for a claim (held, or the hello that starts one).
  func holdForClaim(_ message: ClientMessage, from id: ConnectionID, in s: inout State) -> Bool {
    guard let directory else { return false }
    if s.held[id] != nil {
      guard s.held[id]!.count < Self.maximumHeldMessages else {
        s.held[id] = nil
        reject(id, code: .rateLimited, "too many messages before the welcome", in: &s)
        return true
      }
      s.held[id]!.append(message)
      return true
    }
    // A room this relay never runs (it runs one only) is not claimed: the hello goes on to
    // be refused in words.
    guard case .hello(_, _, let room, let resume, _, _) = message,
      s.core.participant(of: id) == nil,
      !s.core.hasRoom(room), RoomName.isValid(room), !s.stopped,
      configuration.onlyRoom.map({ $0 == room }) ?? true
    else { return false }
    s.held[id] = [message]
    directory.helloWaiting(for: room, resume: resume, check: s.core.resumeCheck, on: id)
    if s.claims[room] != nil {
      s.claims[room]!.append(id)
      return true
    }
    s.claims[room] = [id]
    Task(executorPreference: clock.taskExecutor) { await self.claim(room, through: directory) }
    return true
  }

  private func claim(_ room: String, through directory: any RoomDirectory) async {
    let result: Result<RoomClaim, RoomStoreError>
    do throws(RoomStoreError) {
      result = .success(try await directory.claim(room))
    } catch {
      result = .failure(error)
    }
    let unused: Bool = state.withLock { s in
      let waiting = s.claims.removeValue(forKey: room) ?? []
      let now = clock.groupNow()
      switch result {
      case .success(.owned(let stored, let written)):
        if let stored, !s.core.hasRoom(room) {
          let shift = written.map {
            -ClockReading.continuation(
              of: $0, now: ClockReading(group: now, wallNanoseconds: wallClock()))
          }
          var moved = stored
          moved.state = stored.state.translated(by: shift ?? 0)
          perform(s.core.restore([moved], at: now), in: &s)
        }
        for id in waiting {
          guard let messages = s.held.removeValue(forKey: id) else { continue }
          for message in messages {
            perform(s.core.received(message, from: id, at: clock.groupNow()), in: &s)
          }
        }
        return !s.core.hasRoom(room)
      case .success(.elsewhere(let relay)):
        for id in waiting where s.held.removeValue(forKey: id) != nil {
          answerAndClose(id, .redirect(room: room, relay: relay), in: &s)
        }
        return false
      case .failure(let error):
        if admitLogLine(in: &s) {
          logger.warning(
            "cannot claim room \(room): \(RelayRuntime.loggable(error.description))")
        }
        for id in waiting where s.held.removeValue(forKey: id) != nil {
          reject(
            id, code: .storeUnavailable,
            "the relay cannot reach the database its rooms are kept in; trying again", in: &s)
        }
        return false
      }
    }
    // Claimed, but nobody entered (the hello was refused): the lease goes back at once.
    if unused { try? await directory.release([room]) }
  }

  /// Answers a connection with one error and closes it.
  func reject(_ id: ConnectionID, code: ErrorCode, _ text: String, in s: inout State) {
    answerAndClose(id, .error(code: code, message: text, fatal: true), in: &s)
  }

  /// Sends a connection one last message (flushed) and closes it.
  private func answerAndClose(_ id: ConnectionID, _ message: ServerMessage, in s: inout State) {
    guard let outlet = s.outlets.removeValue(forKey: id) else { return }
    _ = outlet.write(codec.encode(message))
    outlet.close(flush: true)
    Self.forget(id, in: &s)
    perform(s.core.disconnected(id, at: clock.groupNow()), in: &s)
  }

  /// Renews the leases every quarter of their duration, lists the other relays for
  /// welcomes, and gives up rooms whose lease is gone or may have expired unrenewed.
  func runLeaseKeeper() async {
    guard let directory else { return }
    let interval = max(0.05, directory.leaseDuration / 4)
    while !Task.isCancelled {
      await keepLeases(through: directory)
      await outsideClock.sleep(seconds: interval)
    }
  }

  /// One round of ``runLeaseKeeper()``.
  public func keepLeases() async {
    guard let directory else { return }
    await keepLeases(through: directory)
  }

  private func keepLeases(through directory: any RoomDirectory) async {
    guard !state.withLock({ $0.abandoned }) else { return }
    let started = clock.nanoseconds()
    do throws(RoomStoreError) {
      let lost = try await directory.renewLeases()
      let peers = try await directory.peers()
      state.withLock { s in
        s.leasesRenewedAt = started
        s.core.peers = peers
        if s.core.refusingChanges != nil, storeWriter.withLock({ $0.failing == nil }) {
          s.core.refusingChanges = nil
          logger.notice("the database answers again; taking changes")
        }
        for room in lost.sorted() {
          perform(
            s.core.evict(
              room, reason: "room \(room) moved to another relay; reconnecting",
              at: clock.groupNow()), in: &s)
        }
      }
    } catch {
      let why = "the relay cannot reach its database (\(error.description))"
      state.withLock { s in
        if s.core.refusingChanges == nil {
          logger.warning("\(RelayRuntime.loggable(why)); refusing changes")
        }
        s.core.refusingChanges = "not applied: \(why)"
        // Leases run out a lease after the last renewal began; before that, every room
        // goes, so that whoever takes one over is its only relay.
        let safeUntil =
          (s.leasesRenewedAt ?? started)
          &+ Int64(directory.leaseDuration * Self.leaseSafetyMargin * 1e9)
        guard clock.nanoseconds() >= safeUntil || s.leasesRenewedAt == nil else { return }
        let now = clock.groupNow()
        for room in s.core.roomNames {
          perform(
            s.core.evict(room, reason: "\(why); reconnecting", at: now), in: &s)
        }
      }
    }
  }

  /// The share of a lease after which a relay that could not renew gives its rooms up.
  static let leaseSafetyMargin = 0.75
}
