/// A command the driver sends mpv, as a value; ``arguments`` is the array mpv's JSON IPC
/// reads.
public enum MpvCommand: Hashable, Sendable, ExpressibleByArrayLiteral {
  /// Reports changes of `property` as events carrying observation `id`.
  case observe(id: Int, MpvProperty)
  /// Opens `path` in place of the current file, at `start` seconds, paused.
  case loadPaused(path: String, start: Double)
  case setPause(Bool)
  case setSpeed(Double)
  /// An exact seek: mpv lands on the frame at or just after `to`.
  case seekExact(to: Double)
  case get(MpvProperty)
  /// Shows `text` on mpv's on-screen display for `milliseconds` (an empty text takes it
  /// down). Sent over the IPC, mpv expands no `${…}` in it: anyone's chat is shown as is.
  case showText(String, milliseconds: Int)
  case stop
  case quit
  /// Anything else, as mpv's array (diagnostics: a person's own key in mpv).
  case other([MpvValue])

  public init(arrayLiteral elements: MpvValue...) { self = .other(elements) }

  public var arguments: [MpvValue] {
    switch self {
    case .observe(let id, let property):
      ["observe_property", .number(Double(id)), .string(property.name)]
    case .loadPaused(let path, let start):
      ["loadfile", .string(path), "replace", .string("start=\(start),pause=yes")]
    case .setPause(let paused): ["set_property", "pause", .bool(paused)]
    case .setSpeed(let speed): ["set_property", "speed", .number(speed)]
    case .seekExact(let to): ["seek", .number(to), "absolute+exact"]
    case .get(let property): ["get_property", .string(property.name)]
    case .showText(let text, let milliseconds):
      ["show-text", .string(text), .number(Double(milliseconds))]
    case .stop: ["stop"]
    case .quit: ["quit"]
    case .other(let arguments): arguments
    }
  }
}
