/// Why mpv could not be used, in words a person can act on.
public enum MpvError: Error, Hashable, Sendable, CustomStringConvertible {
  case notInstalled(String)
  case cannotStart(String)
  case timedOut(what: String, seconds: Double)
  /// mpv could not open a link, or found nothing in it to watch together.
  case cannotOpenLink(String, why: String)
  /// The mpv found reads some of Cowatch's commands another way.
  case tooOld(path: String, found: MpvVersion)

  public var description: String {
    switch self {
    case .notInstalled(let name):
      "\(name) was not found on PATH: install mpv (e.g. apt-get install mpv), or use --player simulated"
    case .cannotStart(let why): "mpv could not be started: \(why)"
    case .timedOut(let what, let seconds): "mpv did not open \(what) within \(Int(seconds)) s"
    case .cannotOpenLink(let link, let why): "cannot watch \(link): \(why)"
    case .tooOld(let path, let found):
      "\(path) is mpv \(found), too old for Cowatch: it needs mpv \(MpvVersion.oldestSupported.major).\(MpvVersion.oldestSupported.minor) or later (install a newer mpv, or use --player simulated)"
    }
  }
}
