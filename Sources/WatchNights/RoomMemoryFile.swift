import Foundation

/// The file a ``RoomMemory`` is kept in: JSON, with the format's name and version first, so
/// that a later Cowatch can read (or knowingly refuse) what this one wrote. Reading checks
/// the size before anything else and every bound after: a file that is broken, someone
/// else's, from a newer Cowatch or too big gives one ``Problem``, never a crash, and its
/// caller ignores it (the next night writes a good one over it).
public enum RoomMemoryFile {
  /// The format's name, as the file's `format` says it.
  public static let format = "cowatch-room-memory"
  /// The version this Cowatch writes and reads.
  public static let version = 1
  /// Bigger files are not read at all: a memory within its bounds is far smaller.
  public static let maximumBytes = 256 * 1024

  /// Why a file was not read, in words for the person.
  public struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
  }

  /// The file's bytes: never more than ``maximumBytes`` (what reading accepts), the oldest
  /// earlier nights, then the oldest reactions, left out until it fits — each part is
  /// bounded, but all of them at their bounds together would not be.
  public static func encode(_ memory: RoomMemory) -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    var document = Document(memory)
    while true {
      // Every value is a string, a finite number or a date: nothing can fail to encode.
      let data = (try? encoder.encode(document)) ?? Data()
      guard data.count > maximumBytes else { return data }
      if !document.nights.isEmpty {
        document.nights.removeFirst(max(1, document.nights.count / 4))
      } else if !document.moments.isEmpty {
        document.moments.removeFirst(max(1, document.moments.count / 4))
      } else {
        document.people = Array(document.people.prefix(8))
        document.queue = Array(document.queue.prefix(10))
      }
    }
  }

  public static func decode(_ data: Data) throws(Problem) -> RoomMemory {
    guard data.count <= maximumBytes else {
      throw Problem("it is \(data.count) bytes, more than a room's memory can be (\(maximumBytes))")
    }
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    let header: Header
    do {
      header = try decoder.decode(Header.self, from: data)
    } catch {
      throw Problem("it is not a room's memory (not JSON of the expected shape)")
    }
    guard header.format == format else {
      throw Problem("it is not a room's memory (format \(header.format ?? "missing"))")
    }
    guard header.version == version else {
      throw Problem(
        "it was written in version \(header.version.map(String.init) ?? "?") of the format; this Cowatch reads version \(version)"
      )
    }
    let document: Document
    do {
      document = try decoder.decode(Document.self, from: data)
    } catch {
      throw Problem("it is damaged (\(Self.field(of: error)))")
    }
    guard document.position.isFinite, document.position >= 0,
      document.queue.count <= RoomMemory.maximumQueue,
      document.people.count <= RoomMemory.maximumPeople,
      document.moments.count <= RoomMemory.maximumMoments,
      document.nights.count <= RoomMemory.maximumNights,
      document.moments.allSatisfy({ $0.at.isFinite && $0.at >= 0 })
    else { throw Problem("it is damaged (a value out of its bounds)") }
    return RoomMemory(
      room: document.room, watched: document.watched, position: document.position,
      queue: document.queue, people: document.people, when: document.when,
      moments: document.moments, nights: document.nights)
  }

  /// The field a decoding error is about, for the one line that says the file is damaged.
  static func field(of error: any Error) -> String {
    guard let error = error as? DecodingError else { return "unreadable" }
    let path: [any CodingKey]
    switch error {
    case .keyNotFound(let key, let context): path = context.codingPath + [key]
    case .typeMismatch(_, let context), .valueNotFound(_, let context),
      .dataCorrupted(let context):
      path = context.codingPath
    @unknown default: path = []
    }
    let name = path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    return name.isEmpty ? "unreadable" : "bad \(name)"
  }

  /// What is read first: whose format, which version.
  struct Header: Decodable {
    var format: String?
    var version: Int?
  }

  /// The file's shape, version 1.
  struct Document: Codable {
    var format = RoomMemoryFile.format
    var version = RoomMemoryFile.version
    var room: String
    var watched: RoomMemory.Watched
    var label: String
    var position: Double
    var queue: [RoomMemory.Queued]
    var people: [String]
    var when: Date
    var moments: [RoomMemory.Moment]
    var nights: [RoomMemory.Night]

    init(_ memory: RoomMemory) {
      room = memory.room
      watched = memory.watched
      label = memory.label
      position = memory.position
      queue = memory.queue
      people = memory.people
      when = memory.when
      moments = memory.moments
      nights = memory.nights
    }
  }
}
