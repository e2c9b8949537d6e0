import Foundation

/// Where mpv's picture goes, from `--video`, `--video-tty` and what the machine has: a
/// window where there is a display; otherwise the terminal, in a pane of its own (the
/// front keeps the one it runs in); otherwise nowhere (sound only).
enum VideoPlacement {
  case window
  case terminal(path: String, pane: VideoPane?)
  case none

  static func choose(
    command: String, options: ParticipantOptions, environment: [String: String]
  ) throws(CommandFailure) -> VideoPlacement {
    let hasDisplay = environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil
    func terminal() throws(CommandFailure) -> VideoPlacement {
      if let tty = options.videoTty { return .terminal(path: tty, pane: nil) }
      switch VideoPane.open(environment: environment) {
      case .success(let pane): return .terminal(path: pane.terminal, pane: pane)
      case .failure(let error): throw CommandFailure(command, error.description)
      }
    }
    switch options.video {
    case "window":
      guard hasDisplay else {
        throw CommandFailure(
          command,
          "--video window needs a display (DISPLAY or WAYLAND_DISPLAY is not set); --video terminal draws it in a tmux pane"
        )
      }
      return .window
    case "terminal": return try terminal()
    case "none": return .none
    default:
      if options.videoTty != nil { return try terminal() }
      if hasDisplay { return .window }
      // A front inside tmux gets a pane for the picture; a program driving headless
      // mode asked for no picture unless it says so.
      if !options.headless, environment["TMUX"] != nil { return try terminal() }
      return .none
    }
  }
}
