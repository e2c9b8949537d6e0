import ArgumentParser
import Foundation
import PlaybackCoordination
import Rooms
import SQLiteRoomStore
import WatchNights

/// `cowatch forget ROOM`: this machine stops remembering the room's nights (what
/// `cowatch host --room ROOM` would offer to continue). Forgetting is explicit: nothing
/// else removes a memory but the next night, which writes its own over it.
struct ForgetCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "forget",
    abstract:
      "Forget what this machine remembers of a room's last night (and, with --relay-store, a relay's kept room)."
  )

  @Argument(help: "The room's name.") var room: String
  @Option(
    help: ArgumentHelp(
      "Also remove the room from a stopped `cowatch serve` relay's SQLite store (its --store file): a relay that runs writes its rooms back.",
      valueName: "PATH"))
  var relayStore: String?

  func run() async throws {
    let folder = ParticipantRun.memoryFolder()
    let file = folder.file(for: room)
    switch folder.read(room: room) {
    case .memory(let memory):
      folder.remove(room: room)
      Console.line(
        "forgot room \(room): \(memory.label) at \(RoomMemory.clock(memory.position)), \(memory.nights.count + 1) night\(memory.nights.isEmpty ? "" : "s") (\(file) removed)"
      )
    case .unreadable(_, let problem):
      folder.remove(room: room)
      Console.line("forgot room \(room): \(file) removed (it was unreadable: \(problem))")
    case .nothing:
      Console.line("this machine remembers nothing of room \(room) (no \(file))")
    }
    guard let relayStore else { return }
    do throws(RoomStoreError) {
      let store = try SQLiteRoomStore(path: relayStore)
      let (rooms, clock) = try await store.load()
      guard rooms.contains(where: { $0.name == room }) else {
        Console.line("the relay's store \(relayStore) keeps no room \(room)")
        return
      }
      // The clocks of the last write stay as they were: a relay started on the store
      // goes on from them.
      let kept = clock ?? ClockReading(group: GroupInstant(nanoseconds: 0), wallNanoseconds: 0)
      try await store.write(RoomStoreBatch(removed: [room], clock: kept))
      Console.line("removed room \(room) from the relay's store \(relayStore)")
    } catch {
      throw CommandFailure("forget", error.description)
    }
  }
}
