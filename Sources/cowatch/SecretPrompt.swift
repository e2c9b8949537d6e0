import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Asks the person at the terminal for a secret without echoing it, before curses takes
/// the screen.
enum SecretPrompt {
  /// The terminal's settings from before the first question, to put back once the
  /// answers are done with.
  struct Silence {
    fileprivate var saved: termios
    /// Echo back on; whatever was typed meanwhile is discarded, never shown.
    func restore() {
      var saved = saved
      _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
    }
  }

  /// The line typed after `prompt`, or nil when stdin is not a terminal (a pipe, a script:
  /// nobody to ask) or the input ended. Echo goes off at the first question and stays off
  /// until `silence.restore()`: checking an answer takes seconds (the room's scrypt, and a
  /// wrong one is slowed down on purpose), and a person who types it again meanwhile must
  /// not see it printed in clear. Typed-ahead lines are discarded, never taken as answers.
  static func read(prompt: String, silence: inout Silence?) -> String? {
    guard isatty(STDIN_FILENO) == 1 else { return nil }
    if silence == nil {
      var saved = termios()
      guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return nil }
      var quiet = saved
      quiet.c_lflag &= ~tcflag_t(ECHO)
      quiet.c_lflag |= tcflag_t(ECHONL)
      _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
      silence = Silence(saved: saved)
    } else {
      _ = tcflush(STDIN_FILENO, TCIFLUSH)
    }
    Console.errorWithoutNewline(prompt)
    // An empty line is returned as such: the caller says nothing was typed.
    guard let line = readLine(strippingNewline: true) else { return nil }
    if !line.isEmpty { Console.error("checking…") }
    return line
  }

  /// A yes-or-no question at the terminal (echoed); no when nobody can answer.
  static func confirm(_ question: String) -> Bool {
    guard isatty(STDIN_FILENO) == 1 else { return false }
    Console.errorWithoutNewline(question)
    guard let line = readLine(strippingNewline: true) else { return false }
    return ["y", "yes"].contains(line.trimmingCharacters(in: .whitespaces).lowercased())
  }
}
