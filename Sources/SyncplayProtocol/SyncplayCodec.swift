import Foundation

/// Syncplay's wire format: one JSON object a line, lines ending in CRLF, at most 16 KiB
/// (Twisted's `LineReceiver` default, which Syncplay keeps). Decoding checks every field's
/// type and range; anything else is a ``SyncplayError``.
public struct SyncplayCodec: Sendable {
  /// Longest line either side accepts, bytes (without its line end).
  public static let maximumLineLength = 16_384
  /// Syncplay's own display limits (its server truncates to these).
  public static let maximumChatLength = 150
  public static let maximumNameLength = 150
  public static let maximumRoomNameLength = 35
  public static let maximumFileNameLength = 250
  public static let maximumPlaylistItems = 250
  /// The largest position or duration taken, seconds (about 115 days).
  public static let maximumSeconds = 10_000_000.0

  public init() {}

  // MARK: - Decoding

  /// The messages of one line (without its line end; a trailing CR is ignored). Empty
  /// lines carry nothing.
  public func decode(_ line: [UInt8]) throws(SyncplayError) -> [SyncplayClientMessage] {
    var bytes = line[...]
    while let last = bytes.last, last == 13 || last == 10 || last == 32 { bytes.removeLast() }
    guard bytes.count <= Self.maximumLineLength else {
      throw .lineTooLong(limit: Self.maximumLineLength)
    }
    if bytes.isEmpty { return [] }
    guard String(validating: bytes, as: UTF8.self) != nil else { throw .notUTF8 }
    let value: JSONValue
    do {
      value = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    } catch {
      throw .notJSON
    }
    guard let object = value.object else { throw .notAnObject }
    var messages: [SyncplayClientMessage] = []
    for key in object.keys.sorted(by: Self.order) {
      let body = object[key]!
      switch key {
      case "Hello": messages.append(.hello(try hello(body)))
      case "Set": messages += try settings(body).map { .set($0) }
      case "State": messages.append(.state(try state(body)))
      case "List": messages.append(.list)
      case "Chat":
        // Clients send the text; Syncplay's server truncates it.
        guard let text = body.string ?? body["message"]?.string else {
          throw .badField("Chat", expected: "a string")
        }
        messages.append(.chat(String(text.prefix(Self.maximumChatLength))))
      case "Error":
        messages.append(.error(String((body["message"]?.string ?? "").prefix(500))))
      case "TLS":
        guard body["startTLS"]?.string != nil else {
          throw .badField("TLS.startTLS", expected: "a string")
        }
        messages.append(.startTLS)
      default: throw .unknownCommand(key)
      }
    }
    return messages
  }

  /// Hello first, then the rest in a fixed order, so that one line's messages are taken
  /// in the same order every time.
  static func order(_ a: String, _ b: String) -> Bool {
    let rank = ["TLS": 0, "Hello": 1, "Set": 2, "State": 3]
    return (rank[a] ?? 4, a) < (rank[b] ?? 4, b)
  }

  private func hello(_ body: JSONValue) throws(SyncplayError) -> SyncplayHello {
    guard body.object != nil else { throw .badField("Hello", expected: "an object") }
    let username = try text(body["username"], "Hello.username", limit: Self.maximumNameLength)
    guard let roomObject = body["room"], roomObject.object != nil else {
      throw .missing("Hello.room")
    }
    let room = try text(roomObject["name"], "Hello.room.name", limit: Self.maximumRoomNameLength)
    let version: String
    if let real = try optionalText(body["realversion"], "Hello.realversion", limit: 32) {
      version = real
    } else {
      version = try text(body["version"], "Hello.version", limit: 32)
    }
    let password = try optionalText(body["password"], "Hello.password", limit: 256)
    return SyncplayHello(
      username: username.trimmingCharacters(in: .whitespaces),
      room: room.trimmingCharacters(in: .whitespaces), version: version,
      password: password?.isEmpty == true ? nil : password)
  }

  private func settings(_ body: JSONValue) throws(SyncplayError) -> [SyncplaySetting] {
    guard let object = body.object else { throw .badField("Set", expected: "an object") }
    var out: [SyncplaySetting] = []
    for key in object.keys.sorted() {
      let value = object[key]!
      switch key {
      case "room":
        out.append(
          .room(name: try text(value["name"], "Set.room.name", limit: Self.maximumRoomNameLength)))
      case "file":
        out.append(.file(try file(value, "Set.file")))
      case "ready":
        guard let isReady = value["isReady"]?.bool else {
          throw .badField("Set.ready.isReady", expected: "true or false")
        }
        let manual = value["manuallyInitiated"]?.bool ?? false
        out.append(.ready(isReady: isReady, manuallyInitiated: manual))
      case "playlistChange":
        guard let files = value["files"]?.array, files.count <= Self.maximumPlaylistItems else {
          throw .badField(
            "Set.playlistChange.files",
            expected: "a list of at most \(Self.maximumPlaylistItems) names")
        }
        var names: [String] = []
        for entry in files {
          names.append(
            try text(entry, "Set.playlistChange.files[]", limit: Self.maximumFileNameLength))
        }
        out.append(.playlistChange(files: names))
      case "playlistIndex":
        let index = value["index"]
        if index == nil || index == .null {
          out.append(.playlistIndex(nil))
        } else {
          out.append(
            .playlistIndex(
              try integer(index, "Set.playlistIndex.index", 0...Self.maximumPlaylistItems)))
        }
      case "controllerAuth":
        out.append(.controllerAuth)
      default:
        out.append(.ignored(key))
      }
    }
    return out
  }

  private func state(_ body: JSONValue) throws(SyncplayError) -> SyncplayClientState {
    guard body.object != nil else { throw .badField("State", expected: "an object") }
    var state = SyncplayClientState()
    if let playstate = body["playstate"], playstate != .null {
      guard playstate.object != nil else {
        throw .badField("State.playstate", expected: "an object")
      }
      let position = try seconds(playstate["position"] ?? .number(0), "State.playstate.position")
      let paused = playstate["paused"]
      guard paused == nil || paused == .null || paused?.bool != nil else {
        throw .badField("State.playstate.paused", expected: "true or false")
      }
      let doSeek = playstate["doSeek"]?.bool ?? false
      if let paused = paused?.bool {
        state.playstate = .init(position: position, paused: paused, doSeek: doSeek)
      }
    }
    if let ping = body["ping"], ping != .null {
      guard ping.object != nil else { throw .badField("State.ping", expected: "an object") }
      state.latencyCalculation = try optionalTimestamp(
        ping["latencyCalculation"], "State.ping.latencyCalculation")
      state.clientLatencyCalculation = try optionalTimestamp(
        ping["clientLatencyCalculation"], "State.ping.clientLatencyCalculation")
      if let rtt = ping["clientRtt"], rtt != .null {
        guard let value = rtt.number, value >= 0, value <= 3600 else {
          throw .badField("State.ping.clientRtt", expected: "seconds from 0 to 3600")
        }
        state.clientRtt = value
      }
    }
    if let ignoring = body["ignoringOnTheFly"], ignoring != .null {
      guard ignoring.object != nil else {
        throw .badField("State.ignoringOnTheFly", expected: "an object")
      }
      if let server = ignoring["server"] {
        state.ignoringServer = try integer(server, "State.ignoringOnTheFly.server", 0...1_000_000)
      }
      if let client = ignoring["client"] {
        state.ignoringClient = try integer(client, "State.ignoringOnTheFly.client", 0...1_000_000)
      }
    }
    return state
  }

  private func file(_ value: JSONValue, _ field: String) throws(SyncplayError) -> SyncplayFile {
    guard value.object != nil else { throw .badField(field, expected: "an object") }
    let name = try text(value["name"], "\(field).name", limit: Self.maximumFileNameLength)
    let duration = try seconds(value["duration"] ?? .number(0), "\(field).duration")
    let size = value["size"] ?? .number(0)
    switch size {
    case .number(let n) where n.isFinite && n >= 0 && n <= 1e15: break
    case .string(let s) where s.count <= 64: break
    default: throw .badField("\(field).size", expected: "a size in bytes or its hash")
    }
    return SyncplayFile(name: name, duration: max(0, duration), size: size)
  }

  // MARK: Fields

  private func text(_ value: JSONValue?, _ field: String, limit: Int) throws(SyncplayError)
    -> String
  {
    guard let value else { throw .missing(field) }
    guard let string = value.string else { throw .badField(field, expected: "a string") }
    guard string.count <= limit else {
      throw .badField(field, expected: "at most \(limit) characters")
    }
    return string
  }

  private func optionalText(_ value: JSONValue?, _ field: String, limit: Int)
    throws(SyncplayError) -> String?
  {
    guard let value, value != .null else { return nil }
    return try text(value, field, limit: limit)
  }

  private func seconds(_ value: JSONValue, _ field: String) throws(SyncplayError) -> Double {
    guard let n = value.number, abs(n) <= Self.maximumSeconds else {
      throw .badField(field, expected: "a number of seconds (at most \(Int(Self.maximumSeconds)))")
    }
    return n
  }

  private func optionalTimestamp(_ value: JSONValue?, _ field: String) throws(SyncplayError)
    -> Double?
  {
    guard let value, value != .null else { return nil }
    // Syncplay sends 0 for "none" and Unix times otherwise; we only echo them back.
    guard let n = value.number, n >= 0, n < 1e11 else {
      throw .badField(field, expected: "a timestamp")
    }
    return n == 0 ? nil : n
  }

  private func integer(_ value: JSONValue?, _ field: String, _ range: ClosedRange<Int>)
    throws(SyncplayError) -> Int
  {
    guard let n = value?.number, n.rounded() == n, n >= Double(range.lowerBound),
      n <= Double(range.upperBound)
    else {
      throw .badField(
        field, expected: "a whole number from \(range.lowerBound) to \(range.upperBound)")
    }
    return Int(n)
  }

  /// Text from a peer quoted in an error, cut short and with controls escaped.
  static func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars.prefix(40) {
      if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value) {
        out += "\\u{\(String(scalar.value, radix: 16))}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out + (text.unicodeScalars.count > 40 ? "…\"" : "\"")
  }

  // MARK: - Encoding

  /// One line, ending in CRLF.
  public func encode(_ message: SyncplayServerMessage) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = (try? encoder.encode(Self.json(message))) ?? Data("{}".utf8)
    return Array(data) + [13, 10]
  }

  static func json(_ message: SyncplayServerMessage) -> JSONValue {
    switch message {
    case .hello(let username, let room, let version, let motd):
      return .object([
        "Hello": .object([
          "username": .string(username), "room": .object(["name": .string(room)]),
          "version": .string(version), "realversion": .string(SyncplayCodec.serverVersion),
          "motd": .string(motd), "features": features,
        ])
      ])
    case .user(let name, let room, let file, let event):
      var entry: [String: JSONValue] = ["room": .object(["name": .string(room)])]
      if let file { entry["file"] = json(file) }
      switch event {
      case .joined?: entry["event"] = .object(["joined": .bool(true)])
      case .left?: entry["event"] = .object(["left": .bool(true)])
      case nil: break
      }
      return set(["user": .object([name: .object(entry)])])
    case .ready(let username, let isReady, let manual):
      return set([
        "ready": .object([
          "username": .string(username), "isReady": isReady.map(JSONValue.bool) ?? .null,
          "manuallyInitiated": .bool(manual),
        ])
      ])
    case .playlistChange(let user, let files):
      return set([
        "playlistChange": .object([
          "user": user.map(JSONValue.string) ?? .null, "files": .array(files.map(JSONValue.string)),
        ])
      ])
    case .playlistIndex(let user, let index):
      return set([
        "playlistIndex": .object([
          "user": user.map(JSONValue.string) ?? .null,
          "index": index.map { .number(Double($0)) } ?? .null,
        ])
      ])
    case .state(let s):
      var ping: [String: JSONValue] = [
        "latencyCalculation": .number(s.latencyCalculation), "serverRtt": .number(s.serverRtt),
      ]
      if let c = s.clientLatencyCalculation { ping["clientLatencyCalculation"] = .number(c) }
      var state: [String: JSONValue] = [
        "playstate": .object([
          "position": .number(s.position), "paused": .bool(s.paused), "doSeek": .bool(s.doSeek),
          "setBy": s.setBy.map(JSONValue.string) ?? .null,
        ]),
        "ping": .object(ping),
      ]
      var ignoring: [String: JSONValue] = [:]
      if let n = s.ignoringServer { ignoring["server"] = .number(Double(n)) }
      if let n = s.ignoringClient { ignoring["client"] = .number(Double(n)) }
      if !ignoring.isEmpty { state["ignoringOnTheFly"] = .object(ignoring) }
      return .object(["State": .object(state)])
    case .list(let room, let users):
      var entries: [String: JSONValue] = [:]
      for user in users {
        entries[user.name] = .object([
          "position": .number(0), "file": user.file.map(json) ?? .object([:]),
          "controller": .bool(user.controller),
          "isReady": user.isReady.map(JSONValue.bool) ?? .null, "features": .object([:]),
        ])
      }
      return .object(["List": .object([room: .object(entries)])])
    case .chat(let username, let text):
      return .object([
        "Chat": .object(["username": .string(username), "message": .string(text)])
      ])
    case .error(let text):
      return .object(["Error": .object(["message": .string(text)])])
    case .tls(let accepted):
      return .object(["TLS": .object(["startTLS": .string(accepted ? "true" : "false")])])
    }
  }

  static func json(_ file: SyncplayFile) -> JSONValue {
    .object(["name": .string(file.name), "duration": .number(file.duration), "size": file.size])
  }

  static func set(_ fields: [String: JSONValue]) -> JSONValue {
    .object(["Set": .object(fields)])
  }

  /// The Syncplay version the relay answers as: the features of 1.6.9's server.
  public static let serverVersion = "1.6.9"

  static let features: JSONValue = .object([
    "isolateRooms": .bool(true), "readiness": .bool(true), "managedRooms": .bool(false),
    "chat": .bool(true), "maxChatMessageLength": .number(Double(maximumChatLength)),
    "maxUsernameLength": .number(Double(maximumNameLength)),
    "maxRoomNameLength": .number(Double(maximumRoomNameLength)),
    "maxFilenameLength": .number(Double(maximumFileNameLength)),
  ])
}
