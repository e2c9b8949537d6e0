/// Advertises rooms on the local network: answers the questions multicast DNS asks about
/// them and announces changes. Pure: the edge feeds it the rooms, the queries and the time,
/// and sends the messages it returns to 224.0.0.251:5353.
///
/// It skips what RFC 6762 asks of names that must be unique (probing, §8): an instance name
/// holds the machine's name and port, which no other advertiser uses.
public struct NearbyResponder: Sendable {
  /// What is advertised, by instance name (lowercased).
  private var advertised: [String: NearbyRoom] = [:]
  /// Rooms announced once that are announced again at this time (RFC 6762 §8.3: twice, a
  /// second apart, so that one lost datagram does not hide a room).
  private var secondAnnouncement: [String: UInt64] = [:]
  /// When each room's records were last sent in answer to a question: not again within a
  /// quarter of a second, so that a flood of queries is not multiplied onto the network
  /// (announcements, paced by the responder itself, do not count). RFC 6762 §6 asks for a
  /// second; but a `cowatch nearby` started just after another one's answer did not hear
  /// it, and would wait for its own second query.
  private var lastSent: [String: UInt64] = [:]
  static let resendInterval: UInt64 = 250_000_000

  public init() {}

  public var rooms: [NearbyRoom] { advertised.values.sorted { $0.room < $1.room } }

  /// The rooms to advertise now: new and changed ones are announced, gone ones said
  /// goodbye to (records with a time to live of 0).
  public mutating func advertise(_ rooms: [NearbyRoom], at now: UInt64) -> [DNSMessage] {
    var next: [String: NearbyRoom] = [:]
    for room in rooms { next[Self.key(room)] = room }
    var messages: [DNSMessage] = []
    for (key, room) in advertised where next[key] == nil {
      messages.append(Self.announcement(room, ttl: 0))
      secondAnnouncement[key] = nil
    }
    for (key, room) in next.sorted(by: { $0.key < $1.key }) where advertised[key] != room {
      messages.append(Self.announcement(room, ttl: NearbyRoom.timeToLive))
      secondAnnouncement[key] = now + 1_000_000_000
    }
    advertised = next
    return messages
  }

  /// The announcements due at `now`.
  public mutating func tick(at now: UInt64) -> [DNSMessage] {
    var messages: [DNSMessage] = []
    for (key, due) in secondAnnouncement.sorted(by: { $0.key < $1.key }) where due <= now {
      secondAnnouncement[key] = nil
      if let room = advertised[key] {
        messages.append(Self.announcement(room, ttl: NearbyRoom.timeToLive))
      }
    }
    return messages
  }

  /// When ``tick(at:)`` has something to send next.
  public var nextDeadline: UInt64? { secondAnnouncement.values.min() }

  /// Goodbyes for everything advertised, said when the advertiser stops.
  public mutating func stop() -> [DNSMessage] {
    defer {
      advertised = [:]
      secondAnnouncement = [:]
    }
    return rooms.map { Self.announcement($0, ttl: 0) }
  }

  /// The answers to a query: one message per room asked about, holding what it takes to
  /// join it (the pointer, SRV, TXT and addresses). A room whose pointer the asker says it
  /// already holds for at least half its time to live is left out (§7.1), and so is one
  /// sent less than a quarter of a second ago (its asker has it from that).
  public mutating func answer(_ query: DNSMessage, at now: UInt64) -> [DNSMessage] {
    guard !query.isResponse, !advertised.isEmpty else { return [] }
    var messages: [DNSMessage] = []
    var answered: Set<String> = []
    let known = Set(
      query.answers.compactMap { record -> String? in
        guard case .ptr(let target) = record.data, record.ttl >= NearbyRoom.timeToLive / 2
        else { return nil }
        return target.description.lowercased()
      })
    for question in query.questions {
      let asks = { (type: DNSRecordType) in question.type == type || question.type == .any }
      if question.name.matches(NearbyRoom.serviceTypes), asks(.ptr) {
        guard mayResend("_services", at: now) else { continue }
        messages.append(
          DNSMessage(
            isResponse: true,
            answers: [
              DNSRecord(
                name: NearbyRoom.serviceTypes, ttl: NearbyRoom.timeToLive,
                data: .ptr(NearbyRoom.serviceType))
            ]))
        continue
      }
      for room in rooms {
        let key = Self.key(room)
        guard !answered.contains(key), mayResend(key, at: now) else { continue }
        let (pointer, details) = room.records()
        let asksForService = question.name.matches(NearbyRoom.serviceType) && asks(.ptr)
        let asksForInstance =
          question.name.matches(room.instance) && (asks(.srv) || asks(.txt))
        let asksForAddress = question.name.matches(room.target) && asks(.a)
        if asksForService, !known.contains(key) {
          messages.append(DNSMessage(isResponse: true, answers: [pointer], additionals: details))
        } else if asksForInstance || asksForAddress {
          messages.append(DNSMessage(isResponse: true, answers: details))
        } else {
          continue
        }
        answered.insert(key)
        lastSent[key] = now
      }
    }
    return messages
  }

  /// Whether a quarter of a second has passed since `key` was last sent (and if so, counts
  /// it sent now).
  private mutating func mayResend(_ key: String, at now: UInt64) -> Bool {
    if let last = lastSent[key], now < last + Self.resendInterval { return false }
    if key == "_services" { lastSent[key] = now }
    return true
  }

  static func announcement(_ room: NearbyRoom, ttl: UInt32) -> DNSMessage {
    let (pointer, details) = room.records(ttl: ttl)
    return DNSMessage(isResponse: true, answers: [pointer] + details)
  }

  static func key(_ room: NearbyRoom) -> String { room.instance.description.lowercased() }
}
