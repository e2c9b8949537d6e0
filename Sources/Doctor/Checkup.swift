import MpvPlayer
import RouterPortMapping

/// Judges ``MachineFacts``: one ``DoctorFinding`` per check, in the order a person fixes
/// them (the player first, the network last). Pure: the same facts, the same findings.
public enum Checkup {
  /// The terminal size below which the front shows a compact list instead of panes.
  public static let compactBelow = (columns: 40, rows: 14)
  /// The size the front is laid out for.
  public static let comfortable = (columns: 80, rows: 24)

  public static func findings(_ facts: MachineFacts) -> [DoctorFinding] {
    [
      mpv(facts.mpv), playback(facts.playback), ytdlp(facts.ytdlp), terminal(facts.terminal),
    ] + facts.directories.map(directory) + [
      knownRelays(facts.knownRelays), router(facts.router), listening(facts.listening),
      clock(facts.clockSynchronised),
    ]
  }

  /// 1 when any finding is a problem, else 0.
  public static func exitStatus(_ findings: [DoctorFinding]) -> Int32 {
    findings.contains { $0.status == .problem } ? 1 : 0
  }

  static func mpv(_ program: MachineFacts.Program) -> DoctorFinding {
    let oldest = MpvVersion.oldestSupported
    let needed = "\(oldest.major).\(oldest.minor)"
    guard case .found(let path, let line) = program else {
      return DoctorFinding(
        check: "mpv", status: .problem, summary: "mpv is not installed (not found on PATH)",
        advice:
          "install mpv \(needed) or later (apt install mpv) to watch real video; without it only --player simulated works"
      )
    }
    guard let line, let version = MpvVersion(parsing: line) else {
      return DoctorFinding(
        check: "mpv", status: .warning,
        summary: "\(path) does not say which mpv it is (\(line ?? "no --version output"))",
        advice: "Cowatch is checked with mpv \(needed) to 0.40; another build may not work")
    }
    if !version.isSupported {
      return DoctorFinding(
        check: "mpv", status: .problem,
        summary: "\(path) is mpv \(version), too old: Cowatch needs mpv \(needed) or later",
        advice: "install a newer mpv (your distribution's backports, or mpv.io/installation)")
    }
    let range =
      version > MpvVersion.newestChecked
      ? "newer than 0.40, the newest checked: tell us if something fails"
      : "supported"
    return DoctorFinding(
      check: "mpv", status: .ok, summary: "mpv \(version) at \(path) (\(range))")
  }

  static func playback(_ playback: MachineFacts.Playback) -> DoctorFinding {
    switch playback {
    case .notTried(let why):
      return DoctorFinding(
        check: "playback", status: .warning, summary: "mpv was not tried: \(why)")
    case .played(let what):
      return DoctorFinding(
        check: "playback", status: .ok,
        summary: "mpv played a second of \(what) through Cowatch's driver")
    case .failed(let what, let reason):
      return DoctorFinding(
        check: "playback", status: .problem, summary: "mpv could not play \(what): \(reason)",
        advice: "run mpv on the file by hand to see why; --mpv-args passes options to it")
    }
  }

  static func ytdlp(_ program: MachineFacts.Program) -> DoctorFinding {
    guard case .found(let path, let version) = program else {
      return DoctorFinding(
        check: "yt-dlp", status: .warning, summary: "yt-dlp is not installed",
        advice:
          "links to video sites (/play https://…) need it: apt install yt-dlp (plain links to video files play without it)"
      )
    }
    return DoctorFinding(
      check: "yt-dlp", status: .ok,
      summary: "yt-dlp \(version ?? "(version unknown)") at \(path)")
  }

  static func terminal(_ terminal: MachineFacts.Terminal) -> DoctorFinding {
    guard terminal.isTerminal, let columns = terminal.columns, let rows = terminal.rows else {
      return DoctorFinding(
        check: "terminal", status: .warning,
        summary: "not run in a terminal, so its size is unknown",
        advice: "run cowatch doctor in the terminal you will watch in (--headless needs none)")
    }
    let size = "\(columns)×\(rows)"
    let colours = terminal.colors.map { $0 >= 256 ? "256 colours" : "\($0) colours" }
    if columns < compactBelow.columns || rows < compactBelow.rows {
      return DoctorFinding(
        check: "terminal", status: .warning,
        summary: "the terminal is \(size): the front shows a compact list, not its panes",
        advice: "make it at least \(comfortable.columns)×\(comfortable.rows)")
    }
    if columns < comfortable.columns || rows < comfortable.rows {
      return DoctorFinding(
        check: "terminal", status: .warning,
        summary: "the terminal is \(size): the panes are squeezed",
        advice: "\(comfortable.columns)×\(comfortable.rows) or larger shows everything")
    }
    guard let colours, (terminal.colors ?? 0) >= 8 else {
      return DoctorFinding(
        check: "terminal", status: .warning,
        summary:
          "the terminal is \(size), but TERM=\(terminal.term ?? "(unset)") has no colours Cowatch can use",
        advice: "set TERM to your terminal's (e.g. xterm-256color)")
    }
    return DoctorFinding(
      check: "terminal", status: .ok,
      summary: "\(size), \(colours) (TERM=\(terminal.term ?? "?"))")
  }

  static func directory(_ directory: MachineFacts.Directory) -> DoctorFinding {
    let what =
      directory.role == "state"
      ? "certificates, logs and copies of rooms" : "the relays you trust"
    guard let problem = directory.problem else {
      return DoctorFinding(
        check: "\(directory.role)-directory", status: .ok,
        summary: "\(directory.path) is writable (\(what))")
    }
    return DoctorFinding(
      check: "\(directory.role)-directory", status: .problem,
      summary: "\(directory.path) cannot be written: \(problem)",
      advice:
        "Cowatch keeps \(what) there: fix its permissions, or set XDG_\(directory.role.uppercased())_HOME"
    )
  }

  static func knownRelays(_ known: MachineFacts.KnownRelays) -> DoctorFinding {
    if let problem = known.problem {
      return DoctorFinding(
        check: "known-relays", status: .warning,
        summary: "\(known.path) cannot be read: \(problem)",
        advice: "relays you trusted will be asked about again")
    }
    let summary =
      known.count == 0
      ? "no relay trusted yet (the first join asks, and remembers it in \(known.path))"
      : "\(known.count) relay\(known.count == 1 ? "" : "s") trusted, in \(known.path)"
    return DoctorFinding(check: "known-relays", status: .ok, summary: summary)
  }

  static func router(_ router: MachineFacts.Router) -> DoctorFinding {
    let byHand =
      "forward a TCP port to this machine in the router's settings (cowatch host --port), or meet on a public relay (cowatch serve)"
    switch router {
    case .notAsked:
      return DoctorFinding(check: "router", status: .ok, summary: "not asked (--no-router)")
    case .silent(let reasons):
      return DoctorFinding(
        check: "router", status: .warning,
        summary:
          "no home router answered (\(reasons.joined(separator: "; "))): friends on other networks cannot reach a room you host",
        advice: byHand)
    case .answered(let method, let outside):
      guard let outside, !OutsideAddress.isPrivate(outside) else {
        return DoctorFinding(
          check: "router", status: .warning,
          summary:
            "the router answers (\(method)), but its outside address (\(outside ?? "none")) is not the internet's: carrier-grade NAT, or a router behind another",
          advice:
            "friends outside cannot reach a room you host: meet on a public relay (cowatch serve)")
      }
      return DoctorFinding(
        check: "router", status: .ok,
        summary:
          "the router answers (\(method)), outside address \(outside): cowatch host asks it to forward its port"
      )
    }
  }

  static func listening(_ listening: MachineFacts.Listening) -> DoctorFinding {
    if let problem = listening.problem {
      return DoctorFinding(
        check: "listen", status: .warning,
        summary: "port \(listening.port) cannot be listened on: \(problem)",
        advice: "host with another --port, or stop what holds it")
    }
    guard !listening.addresses.isEmpty else {
      return DoctorFinding(
        check: "listen", status: .warning,
        summary:
          "port \(listening.port) can be listened on, but this machine has no address beyond loopback",
        advice: "only this machine can join a room it hosts: connect it to a network")
    }
    return DoctorFinding(
      check: "listen", status: .ok,
      summary:
        "port \(listening.port) can be listened on; friends nearby reach it at \(listening.addresses.joined(separator: ", "))"
    )
  }

  static func clock(_ synchronised: Bool?) -> DoctorFinding {
    switch synchronised {
    case true?:
      return DoctorFinding(
        check: "clock", status: .ok, summary: "the system clock is synchronised (NTP)")
    case false?:
      return DoctorFinding(
        check: "clock", status: .warning,
        summary:
          "the system clock is not synchronised: playback keeps its own group clock, but certificates' dates and log times may be off",
        advice: "turn on time synchronisation (timedatectl set-ntp true)")
    case nil:
      return DoctorFinding(
        check: "clock", status: .ok,
        summary:
          "the system does not say whether its clock is synchronised (playback needs no more)")
    }
  }
}
