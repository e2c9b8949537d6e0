import ArgumentParser
import Foundation
import Logging
import ParticipantRuntime
import Participation
import PlaybackCoordination
import PlayerOSD
import RoomCrypto
import WireProtocol

/// Options shared by `join` and `host`.
struct ParticipantOptions: ParsableArguments {
  @Option(help: "Your name as others see it.") var name: String
  @Option(
    name: .customLong("room"),
    help:
      "The room: for host, the one you open (default lobby); for join, the one to enter (default: the invite link's, else lobby)."
  )
  var roomOption: String?
  /// The room to enter.
  var room: String {
    get { roomOption ?? "lobby" }
    set { roomOption = newValue }
  }
  @Flag(help: "No curses: actions on stdin, one JSON object per line on stdout.") var headless =
    false
  // Numbers are taken as they come, "-5" included (the checks below then say what is
  // wrong with it), not read as a flag named 5.
  @Option(
    name: .customLong("sample-ms"), parsing: .unconditional,
    help: "With --headless: print what the player shows every N ms.")
  var sampleMilliseconds = 0
  @Flag(help: "Turn auto-advance on from the start.") var autoadvance = false
  @Option(
    name: .customLong("offset"), parsing: .unconditional,
    help: ArgumentHelp(
      "Run your player this many milliseconds ahead of the group (negative: behind), for sound that reaches you late (Bluetooth, 150–250) or a file with another intro; within ±10000. The others see it; it is not sync error.",
      valueName: "MS"))
  var offsetMilliseconds = 0.0
  @Option(help: "The player: simulated (a test pattern in the front), or mpv (real video).")
  var player = "simulated"
  @Option(
    help:
      "Watch your own videos: a directory with a folder per series (or one flat folder); episodes ordered by S01E02 numbers in their names."
  )
  var media: String?
  // Taken whatever it looks like: its value is mpv's own options, which begin with "--".
  @Option(
    parsing: .unconditional,
    help: "With --player mpv: more options for mpv, e.g. \"--fs\" or \"--vo=kitty\".")
  var mpvArgs = ""
  @Option(
    help:
      "With --player mpv: where the picture goes: window (needs a display), terminal (a tmux pane below the front, or --video-tty), none (sound only), or auto: a window if there is a display, else a tmux pane inside tmux, else none."
  )
  var video = "auto"
  @Option(
    help: ArgumentHelp(
      "With --player mpv: what mpv's on-screen display shows of the group, at the top of the picture: chat (who paused, waits, arrivals and chat; the default), changes (all but chat), or none.",
      valueName: "chat|changes|none"))
  var osd: String?
  @Option(
    help: ArgumentHelp(
      "With --player mpv: draw the picture in this other terminal (run `tty` there to learn its path).",
      valueName: "PATH"))
  var videoTty: String?
  @Flag(
    help:
      "With --player mpv: open every link others start or queue without asking (otherwise only links of your trusted sites open at once; the front asks about the rest, headless mode refuses them)."
  )
  var trustLinks = false
  @Flag(
    help:
      "With --player mpv: let links lead to this machine or its network (localhost, 10.x, 192.168.x, 169.254.x, fd00::/8, .local names); refused otherwise, whoever starts them."
  )
  var allowLocalLinks = false
  @Option(
    parsing: .unconditional,
    help: "Simulated player clock drift, parts per million (negative: a slow clock).")
  var driftPpm = 0.0
  @Option(help: "Simulated player start-up latency, milliseconds.") var latencyMs = 0.0
  @Option(help: "Log level (trace, debug, info, notice, warning, error).") var logLevel = "notice"
  @Option(
    help:
      "Write logs to this file (default: stderr with --headless; otherwise $XDG_STATE_HOME/cowatch/cowatch-NAME.log, i.e. ~/.local/state/cowatch/cowatch-NAME.log)."
  )
  var logFile: String?
  @Option(
    help: ArgumentHelp(
      "The room's password, read from this file (one trailing line break is ignored); or set COWATCH_ROOM_PASSWORD. The first person in a room sets it; messages in the room are then sealed end to end.",
      valueName: "FILE"))
  var passwordFile: String?
  @Option(
    help: ArgumentHelp(
      "How slow the room's password is to check, for a room you create: scrypt with 2^N rounds, N \(KeyDerivation.costs.lowerBound)–\(KeyDerivation.costs.upperBound) (default \(KeyDerivation.defaultCost), about 0.3 s). Lower is quicker to enter on a slow machine, and as much quicker to guess.",
      valueName: "N"))
  var passwordCost = KeyDerivation.defaultCost
  @Flag(
    help:
      "Lend your copies (--media, with --player mpv) to members who have none: they watch from your file, read over TLS as they play. `cowatch host` lends by default."
  )
  var lend = false
  @Flag(help: "Do not lend your copies (for `cowatch host`, which lends by default).")
  var noLend = false
  @Flag(
    help:
      "Do not offer to carry the room: by default your machine listens on a port and, if the room's host leaves or goes, the room can go on there."
  )
  var noCarry = false
  @Option(
    help: ArgumentHelp(
      "The port your machine listens on to carry the room (default: any free one).",
      valueName: "PORT"))
  var carryPort = 0

  func validate() throws {
    guard (0...65535).contains(carryPort) else {
      throw ValidationError("--carry-port must be 0–65535")
    }
    if lend, noLend { throw ValidationError("--lend and --no-lend contradict each other") }
    if noCarry, carryPort != 0 {
      throw ValidationError("--no-carry and --carry-port contradict each other")
    }
    if case .failure(let problem) = ParticipantName.validate(name) {
      throw ValidationError("--name: \(problem)")
    }
    guard sampleMilliseconds >= 0 else { throw ValidationError("--sample-ms must be 0 or more") }
    let limit = Participant.maximumPersonalOffset * 1000
    guard offsetMilliseconds.isFinite, abs(offsetMilliseconds) <= limit else {
      throw ValidationError("--offset must be within ±\(Int(limit)) ms")
    }
    guard ["simulated", "mpv"].contains(player) else {
      throw ValidationError("--player must be simulated or mpv, not \(player)")
    }
    guard ["auto", "window", "terminal", "none"].contains(video) else {
      throw ValidationError("--video must be auto, window, terminal or none, not \(video)")
    }
    if let osd, OSDMode(rawValue: osd) == nil {
      throw ValidationError("--osd must be chat, changes or none, not \(osd)")
    }
    if let videoTty, !FileManager.default.isWritableFile(atPath: videoTty) {
      throw ValidationError("--video-tty: cannot write to \(videoTty)")
    }
    if player != "mpv" {
      // Options for a player that is not used would be ignored without a word.
      if !mpvArgs.isEmpty { throw ValidationError("--mpv-args only applies with --player mpv") }
      if videoTty != nil { throw ValidationError("--video-tty only applies with --player mpv") }
      if osd != nil { throw ValidationError("--osd only applies with --player mpv") }
    }
    guard abs(driftPpm) <= 100_000 else {
      throw ValidationError("--drift-ppm must be within ±100000")
    }
    guard (0...10_000).contains(latencyMs) else {
      throw ValidationError("--latency-ms must be 0–10000")
    }
    guard Logger.Level(rawValue: logLevel) != nil else {
      throw ValidationError("unknown --log-level \(logLevel)")
    }
    guard KeyDerivation.costs.contains(passwordCost) else {
      throw ValidationError(
        "--password-cost must be \(KeyDerivation.costs.lowerBound)–\(KeyDerivation.costs.upperBound)"
      )
    }
    guard RoomName.isValid(room) else { throw ValidationError("--room must be \(RoomName.rule)") }
  }

  /// The room's password from `--password-file` or `COWATCH_ROOM_PASSWORD`, if given.
  func password(command: String) throws(CommandFailure) -> RoomPassword? {
    let raw: String
    let source: String
    if let passwordFile {
      do {
        raw = try String(contentsOfFile: passwordFile, encoding: .utf8)
      } catch {
        throw CommandFailure(
          command, "cannot read the password file \(passwordFile): \(error.localizedDescription)")
      }
      source = "the password file \(passwordFile)"
    } else if let value = ProcessInfo.processInfo.environment["COWATCH_ROOM_PASSWORD"] {
      raw = value
      source = "COWATCH_ROOM_PASSWORD"
    } else {
      return nil
    }
    do {
      return try RoomPassword(raw)
    } catch {
      throw CommandFailure(command, "\(source): \(error.description)")
    }
  }

  var configuration: ParticipantConfiguration {
    var configuration = ParticipantConfiguration(
      name: name.trimmingCharacters(in: .whitespaces), room: room, autoAdvance: autoadvance)
    configuration.keyDerivationCost = passwordCost
    configuration.personalOffset = offsetMilliseconds / 1000
    return configuration
  }
}
