import Foundation
import Testing
import WatchNights

/// A memory with every part filled in.
func sampleMemory(room: String = "club") -> RoomMemory {
  var memory = RoomMemory(
    room: room,
    watched: .init(
      series: "harbour", seriesTitle: "Harbour Lights", item: "harbour/s1e3",
      itemTitle: "The Storm"),
    position: 1274,
    queue: [
      .init(
        .init(
          series: "harbour", seriesTitle: "Harbour Lights", item: "harbour/s1e4",
          itemTitle: "Low Tide"), addedBy: "bob")
    ],
    people: ["ann", "bob"], when: Date(timeIntervalSince1970: 1_795_556_400),
    nights: [
      .init(
        when: Date(timeIntervalSince1970: 1_794_951_600), label: "Harbour Lights S1E1",
        people: ["ann"])
    ])
  memory.addMoment(who: "bob", text: "the lighthouse!", at: 1200.5)
  return memory
}

@Suite("A room's memory: the value and its file")
struct RoomMemoryTests {
  @Test("a memory written to its file reads back the same, with its format and version first")
  func roundTrip() throws {
    let memory = sampleMemory()
    let data = RoomMemoryFile.encode(memory)
    #expect(try RoomMemoryFile.decode(data) == memory)
    let text = String(decoding: data, as: UTF8.self)
    #expect(text.contains(#""format":"cowatch-room-memory""#))
    #expect(text.contains(#""version":1"#))
    #expect(text.contains(#""label":"Harbour Lights S1E3""#))
  }

  @Test("the offer names the episode, the film's position and the others who were there")
  func offer() {
    let memory = sampleMemory()
    #expect(
      memory.offer(to: "bob") == "last time: Harbour Lights S1E3 at 21:14, with ann — continue?")
    #expect(
      memory.offer(to: "carl")
        == "last time: Harbour Lights S1E3 at 21:14, with ann and bob — continue?")
    var alone = memory
    alone.people = ["ann"]
    #expect(alone.offer(to: "ann") == "last time: Harbour Lights S1E3 at 21:14 — continue?")
    #expect(RoomMemory.clock(3723) == "1:02:03")
  }

  @Test("moments, queue, people, nights and texts stay within their bounds")
  func bounds() throws {
    var memory = sampleMemory()
    for i in 0..<(RoomMemory.maximumMoments + 50) {
      memory.addMoment(who: "ann", text: String(repeating: "ha", count: 500), at: Double(i))
    }
    #expect(memory.moments.count == RoomMemory.maximumMoments)
    #expect(memory.moments.last?.at == Double(RoomMemory.maximumMoments + 49), "the newest kept")
    #expect(memory.moments.allSatisfy { $0.text.utf8.count <= RoomMemory.maximumMomentText })
    memory.addMoment(who: "ann", text: "nan", at: .nan)
    #expect(memory.moments.last?.text != "nan")
    let big = RoomMemory(
      room: String(repeating: "é", count: 1000), watched: memory.watched, position: .infinity,
      queue: Array(repeating: memory.queue[0], count: 500),
      people: (0..<500).map { "p\($0)" }, when: Date(),
      nights: Array(repeating: memory.nights[0], count: 500))
    #expect(big.room.utf8.count <= RoomMemory.maximumText)
    #expect(big.position == 0)
    #expect(big.queue.count == RoomMemory.maximumQueue)
    #expect(big.people.count == RoomMemory.maximumPeople)
    #expect(big.nights.count == RoomMemory.maximumNights)
    // Every part at its bound together: the file still fits its limit and reads back,
    // the oldest nights left out.
    var biggest = big
    let longest = String(repeating: "w", count: RoomMemory.maximumText)
    let name = { (i: Int) in String(("\(i)" + longest).prefix(RoomMemory.maximumText)) }
    biggest.people = (0..<RoomMemory.maximumPeople).map(name)
    biggest.nights = (0..<RoomMemory.maximumNights).map {
      RoomMemory.Night(
        when: Date(timeIntervalSince1970: 0), label: name($0), people: biggest.people)
    }
    for i in 0..<RoomMemory.maximumMoments {
      biggest.addMoment(who: longest, text: String(repeating: "é", count: 500), at: Double(i))
    }
    let data = RoomMemoryFile.encode(biggest)
    #expect(data.count <= RoomMemoryFile.maximumBytes)
    let read = try #require(try? RoomMemoryFile.decode(data))
    #expect(read.nights.last?.label == biggest.nights.last?.label, "the newest nights kept")
    #expect(read.moments == biggest.moments)
  }

  @Test(
    "garbage, another format, another version, out-of-bounds values and oversized files are one clear problem, never a crash",
    arguments: [
      "", "not json", "[]", "{}", #"{"format":"something-else","version":1}"#,
      #"{"format":"cowatch-room-memory","version":2}"#,
      #"{"format":"cowatch-room-memory","version":1,"room":"club"}"#,
      #"{"format":"cowatch-room-memory","version":"1"}"#,
    ])
  func garbage(text: String) {
    #expect(throws: RoomMemoryFile.Problem.self) { try RoomMemoryFile.decode(Data(text.utf8)) }
  }

  @Test("a file over the size limit is refused before it is parsed; random bytes are refused")
  func oversizedAndRandom() throws {
    let huge = Data(repeating: 0x20, count: RoomMemoryFile.maximumBytes + 1)
    let problem = try #require(throws: RoomMemoryFile.Problem.self) {
      try RoomMemoryFile.decode(huge)
    }
    #expect(problem.description.contains("more than a room's memory can be"))
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<200 {
      let bytes = Data(
        (0..<Int.random(in: 0..<300, using: &generator)).map { _ in
          UInt8.random(in: 0...255, using: &generator)
        })
      #expect(throws: RoomMemoryFile.Problem.self) { try RoomMemoryFile.decode(bytes) }
    }
    // A good file with one value out of bounds (a negative position).
    var text = String(decoding: RoomMemoryFile.encode(sampleMemory()), as: UTF8.self)
    text = text.replacingOccurrences(of: #""position":1274"#, with: #""position":-5"#)
    #expect(throws: RoomMemoryFile.Problem.self) { try RoomMemoryFile.decode(Data(text.utf8)) }
  }

  @Test(
    "a room's name never leaves the folder: every name is one plain file name, distinct names distinct files"
  )
  func names() {
    let names = [
      "club", "Club", "../etc/passwd", "..", ".", "", "/", "a/b", "a%2Fb", "a b", "ünïcode 🎬",
      String(repeating: "x", count: 300), String(repeating: "x", count: 301),
      String(repeating: "/", count: 200), "\u{0}nul",
    ]
    var seen: Set<String> = []
    for name in names {
      let file = RoomMemoryFolder.fileName(for: name)
      #expect(!file.contains("/") && file != "." && file != ".." && !file.hasPrefix("."), "\(file)")
      #expect(file.utf8.count <= 200, "\(file.utf8.count)")
      #expect(!file.contains("\u{0}"))
      seen.insert(file)
    }
    #expect(seen.count == names.count, "each name its own file")
    #expect(RoomMemoryFolder.fileName(for: "club") == "club.json")
  }
}
