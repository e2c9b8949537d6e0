import Clocks
import Foundation
import Participation
import PlaybackCoordination
import Synchronization
import WatchNights
import WireProtocol

/// Keeps this machine's memory of its room while a participant runs (see ``NightRecorder``
/// for when it writes): looks at the client's replica of the group once a second, on the
/// client's clock, and writes what the recorder says into the folder; ``stop()`` writes
/// what is left. A memory that cannot be written is said once (`problem`) and the night
/// goes on without it.
public final class NightKeeper: Sendable {
  /// How often the group is looked at, in seconds of the client's clock.
  public static let lookInterval: Double = 1

  private let recorder: Mutex<NightRecorder>
  private let folder: RoomMemoryFolder
  private let clock: any SessionClock
  private let wall: @Sendable () -> Date
  private let problem: @Sendable (String) -> Void
  private let complained = Mutex(false)
  private let follower = Mutex<Task<Void, Never>?>(nil)
  private let reactionFollower = Mutex<Task<Void, Never>?>(nil)

  /// `previous`: the room's memory as the night began (its nights go on in the new one).
  public init(
    room: String, previous: RoomMemory?, folder: RoomMemoryFolder, clock: any SessionClock,
    wall: @escaping @Sendable () -> Date = { Date() },
    problem: @escaping @Sendable (String) -> Void = { _ in }
  ) {
    recorder = Mutex(NightRecorder(room: room, previous: previous))
    self.folder = folder
    self.clock = clock
    self.wall = wall
    self.problem = problem
  }

  /// Follows `client` until ``stop()``: the group once a second, and every reaction made
  /// tonight (kept with its film time).
  public func follow(_ client: ParticipantClient) {
    let reactions = Task(executorPreference: clock.taskExecutor) { [weak self] in
      for await (_, name, body) in await client.rawMessages(kind: .reaction) {
        guard let self else { return }
        if case .success(let reaction) = Reaction.read(body: body) {
          addMoment(who: name, text: reaction.text, at: reaction.at)
        }
      }
    }
    reactionFollower.withLock {
      $0?.cancel()
      $0 = reactions
    }
    let task = Task(executorPreference: clock.taskExecutor) { [weak self] in
      while !Task.isCancelled {
        let snapshot = await client.snapshot()
        guard let self else { return }
        look(at: snapshot)
        await clock.sleep(seconds: Self.lookInterval)
      }
    }
    follower.withLock {
      $0?.cancel()
      $0 = task
    }
  }

  /// A reaction of tonight, kept with the memory (bounded: see ``RoomMemory/addMoment(who:text:at:)``).
  public func addMoment(who: String, text: String, at: Double) {
    recorder.withLock { $0.addMoment(who: who, text: text, at: at) }
  }

  /// The group as `snapshot` has it: written if the recorder says so.
  public func look(at snapshot: ParticipantSnapshot) {
    let now = clock.localNow().seconds
    let due = recorder.withLock {
      $0.saw(snapshot.state, position: snapshot.groupPosition, at: now, wall: wall())
    }
    if let due { write(due, at: now) }
  }

  /// Stops following, and writes what was not written yet (the night's end).
  public func stop() {
    follower.withLock {
      $0?.cancel()
      $0 = nil
    }
    reactionFollower.withLock {
      $0?.cancel()
      $0 = nil
    }
    if let last = recorder.withLock({ $0.finish() }) { write(last, at: clock.localNow().seconds) }
  }

  /// The memory as last written (tests, the benchmark).
  public var written: RoomMemory? { recorder.withLock { $0.written } }

  private func write(_ memory: RoomMemory, at seconds: Double) {
    do throws(RoomMemoryFile.Problem) {
      try folder.write(memory)
      recorder.withLock { $0.written(memory, at: seconds) }
    } catch {
      let first = complained.withLock { already in
        defer { already = true }
        return !already
      }
      if first { problem("the room's memory is not kept: \(error.description)") }
    }
  }

  deinit {
    follower.withLock { $0?.cancel() }
    reactionFollower.withLock { $0?.cancel() }
  }
}
