import Foundation

/// A tmux pane for the picture, opened below the front when there is no display: mpv
/// draws the video there (`--vo=tct`) while the front keeps the group, the people and the
/// prompts. The pane runs only a loop that keeps it open while this process lives.
struct VideoPane: Sendable {
  /// tmux's id for the pane (`%12`), and the terminal device mpv writes to.
  let id: String
  let terminal: String

  /// Splits the current tmux window; nil with the reason when it cannot.
  static func open(environment: [String: String]) -> Result<VideoPane, VideoPaneError> {
    guard environment["TMUX"] != nil else { return .failure(.notInTmux) }
    // The pane lives as long as this process: killed (SIGKILL, a closed terminal) without
    // closing it, it closes itself within a second.
    let output = tmux([
      "split-window", "-d", "-v", "-l", "45%", "-P", "-F", "#{pane_id} #{pane_tty}",
      "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done",
    ])
    let fields = output?.split(separator: " ").map(String.init) ?? []
    guard fields.count == 2, fields[0].hasPrefix("%"), fields[1].hasPrefix("/dev/") else {
      return .failure(.tmuxFailed(output ?? "no answer"))
    }
    return .success(VideoPane(id: fields[0], terminal: fields[1]))
  }

  func close() { _ = Self.tmux(["kill-pane", "-t", id]) }

  /// Runs tmux (bounded: 5 s) and returns its output, or nil if it failed.
  private static func tmux(_ arguments: [String]) -> String? {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["tmux"] + arguments
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    p.standardInput = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return nil }
    let deadline = Date().addingTimeInterval(5)
    while p.isRunning && Date() < deadline { usleep(5000) }
    if p.isRunning {
      p.terminate()
      return nil
    }
    guard p.terminationStatus == 0 else { return nil }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }
}

/// Why the picture cannot go to a pane of its own.
enum VideoPaneError: Error, CustomStringConvertible {
  case notInTmux
  case tmuxFailed(String)

  var description: String {
    switch self {
    case .notInTmux:
      "video in the terminal needs a pane of its own: run cowatch inside tmux, or give another terminal with --video-tty PATH (run `tty` there)"
    case .tmuxFailed(let why): "tmux could not open a pane for the picture: \(why)"
    }
  }
}
