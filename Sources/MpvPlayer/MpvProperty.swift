/// The mpv properties the driver reads, sets or observes, by their IPC names.
public enum MpvProperty: Hashable, Sendable, ExpressibleByStringLiteral {
  case pause
  case pausedForCache
  case eofReached
  case duration
  case speed
  /// The audio clock: continuous, unlike `time-pos`, which moves in whole frames.
  case audioPTS
  case timePos
  /// Any other property, by name (diagnostics).
  case named(String)

  public init(name: String) {
    self =
      switch name {
      case "pause": .pause
      case "paused-for-cache": .pausedForCache
      case "eof-reached": .eofReached
      case "duration": .duration
      case "speed": .speed
      case "audio-pts": .audioPTS
      case "time-pos": .timePos
      default: .named(name)
      }
  }

  public init(stringLiteral name: String) { self.init(name: name) }

  public var name: String {
    switch self {
    case .pause: "pause"
    case .pausedForCache: "paused-for-cache"
    case .eofReached: "eof-reached"
    case .duration: "duration"
    case .speed: "speed"
    case .audioPTS: "audio-pts"
    case .timePos: "time-pos"
    case .named(let name): name
    }
  }
}
