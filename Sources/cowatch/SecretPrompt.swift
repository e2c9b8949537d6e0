import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Asks the person at the terminal for a secret without echoing it, before curses takes
/// the screen.
enum SecretPrompt {
  /// The line typed after `prompt`, or nil when stdin is not a terminal (a pipe, a script:
  /// nobody to ask) or the input ended.
  static func read(prompt: String) -> String? {
    guard isatty(STDIN_FILENO) == 1 else { return nil }
    var saved = termios()
    guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return nil }
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO)
    quiet.c_lflag |= tcflag_t(ECHONL)
    Console.errorWithoutNewline(prompt)
    _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
    defer { _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
    guard let line = readLine(strippingNewline: true), !line.isEmpty else { return nil }
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
