/// A command the driver sends mpv, as a value; ``arguments`` are its name and arguments in
/// the manual's order, and ``argumentNames`` says when mpv must read them by name.
///
/// Cowatch works with mpv 0.34 to 0.40 (``MpvVersion/oldestSupported``). Of what it sends,
/// only `loadfile` changed in that range: mpv 0.38 put an `index` argument before
/// `options`, so no positional form is read the same way by every version (the four-argument
/// one is refused from 0.38 on, a five-argument one before it). Named arguments are read the
/// same way by all of them. `observe_property`, `get_property`, `set_property`, `seek` with
/// `absolute+exact`, `show-text TEXT MS`, `stop` and `quit`, and the properties in
/// ``MpvProperty``, did not change.
public enum MpvCommand: Hashable, Sendable, ExpressibleByArrayLiteral {
  /// Reports changes of `property` as events carrying observation `id`.
  case observe(id: Int, MpvProperty)
  /// Opens `path` in place of the current file, at `start` seconds, paused.
  /// Opens `path` paused at `start`; `extractor`: mpv may hand a link's page to yt-dlp
  /// (only for a site the person trusts: yt-dlp parses whatever the page holds).
  /// `options`: a lent file's subtitle and read-ahead, for this file only.
  case loadPaused(
    path: String, start: Double, extractor: Bool = false, options: MpvFileOptions = .init())
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
    case .loadPaused(let path, let start, let extractor, let options):
      [
        "loadfile", .string(path), "replace",
        .string(
          "start=\(start),pause=yes\(extractor ? "" : ",ytdl=no")" + options.loadfileOptions),
      ]
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

  /// A value in a `loadfile` options list, whatever it holds (`,` `=`): mpv's
  /// `%LENGTH%VALUE` form, the length in bytes.
  static func quoted(_ value: String) -> String { "%\(value.utf8.count)%\(value)" }

  /// The names mpv gives the arguments after the command's own name, when it must read
  /// them by name (a JSON object) rather than by position; nil: by position.
  public var argumentNames: [String]? {
    switch self {
    case .loadPaused: ["url", "flags", "options"]
    default: nil
    }
  }
}
