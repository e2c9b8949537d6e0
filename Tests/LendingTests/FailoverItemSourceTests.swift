import Clocks
import LendingEndpoint
import NIOCore
import Synchronization
import TestSupport
import Testing

/// A lender's copy in memory that can be made to fail, as one whose lender left.
final class BreakableItem: ItemSource {
  let item: MemoryItem
  let broken = Atomic<Bool>(false)
  var size: Int64 { item.size }
  init(_ count: Int) { item = MemoryItem(count) }
  func read(from offset: Int64, maximum: Int) async throws -> ByteBuffer {
    guard !broken.load(ordering: .relaxed) else { throw ItemSourceError("the lender left") }
    return try await item.read(from: offset, maximum: maximum)
  }
}

@Suite("A borrowed item whose lender changes under the player")
struct FailoverItemSourceTests {
  @Test(
    "the copy fails: told once, the read waits and is served by the next copy of the same size"
  )
  func handsOver() async throws {
    let time = VirtualTime(clock: ManualClock(simulation: SimulationExecutor()))
    let first = BreakableItem(1000)
    let told = Mutex<[String]>([])
    let copy = FailoverItemSource(first, clock: time.clock, handoverWait: 30) { why in
      told.withLock { $0.append(why) }
    }
    #expect(try await copy.read(from: 10, maximum: 5).readableBytes == 5)
    first.broken.store(true, ordering: .relaxed)
    let waiting = Task(executorPreference: time.clock.taskExecutor) {
      try await copy.read(from: 100, maximum: 50)
    }
    let alsoWaiting = Task(executorPreference: time.clock.taskExecutor) {
      try await copy.read(from: 900, maximum: 500)
    }
    await time.settle()
    #expect(told.withLock { $0 } == ["the lender left"])
    let second = BreakableItem(1000)
    try await copy.replace(with: second)
    let (a, b) = try await (waiting.value, alsoWaiting.value)
    #expect(Array(buffer: a) == Array(second.item.bytes[100..<150]))
    #expect(Array(buffer: b) == Array(second.item.bytes[900..<1000]))
    #expect(told.withLock { $0.count } == 1, "two reads failing one copy tell it once")
  }

  @Test("another cut of another size does not take over; closed, waiting reads fail at once")
  func refusedAndClosed() async throws {
    let first = BreakableItem(1000)
    let copy = FailoverItemSource(first, clock: MonotonicClock(), handoverWait: 30) { _ in }
    await #expect(throws: ItemSourceError.self) { try await copy.replace(with: MemoryItem(999)) }
    first.broken.store(true, ordering: .relaxed)
    let waiting = Task { try await copy.read(from: 0, maximum: 10) }
    await copy.close()
    await #expect(throws: ItemSourceError.self) { _ = try await waiting.value }
    await #expect(throws: ItemSourceError.self) { try await copy.replace(with: MemoryItem(1000)) }
  }

  @Test("no copy comes in time: the read fails when the wait is up, not before; it does not hang")
  func timesOut() async throws {
    // On virtual time: the wait is the clock's, whatever the machine is busy with.
    let time = VirtualTime(clock: ManualClock(simulation: SimulationExecutor()))
    let clock = time.clock
    let copy = FailoverItemSource(BreakableItem(100), clock: clock, handoverWait: 20) { _ in }
    await copy.release()
    let start = clock.nanoseconds()
    let reading = Task(executorPreference: clock.taskExecutor) {
      try await copy.read(from: 0, maximum: 10)
    }
    await time.settle()
    #expect(clock.nextDeadline == start + 20_000_000_000, "the read waits 20 s of the clock")
    await time.advance(bySeconds: 19.9)
    #expect(clock.nextDeadline != nil, "still waiting short of 20 s")
    await time.advance(bySeconds: 0.1)
    let error = await #expect(throws: ItemSourceError.self) { _ = try await reading.value }
    #expect(error?.description.contains("no other lender's copy came within 20 s") == true)
  }
}
