/// Why the interactive terminal could not start. Each message is one line for stderr and
/// suggests `--headless`, which needs no terminal.
public enum TerminalError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Standard input or output is not a terminal (piped, redirected, no TTY).
  case notATerminal
  /// `TERM` is unset or empty.
  case termUnset
  /// The terminfo database has no entry for `TERM`.
  case unknownTerminal(String)
  /// No terminfo database at all.
  case terminfoMissing
  /// The terminal cannot position the cursor (e.g. `dumb`).
  case unusableTerminal(String)
  /// curses refused to start for another reason.
  case cursesFailed(String)

  public var description: String {
    let hint = "use --headless to drive cowatch with commands on stdin instead"
    return switch self {
    case .notATerminal:
      "cowatch: the interactive front needs a terminal (stdin/stdout are not a TTY); \(hint)"
    case .termUnset:
      "cowatch: TERM is not set, so the terminal type is unknown; set TERM (e.g. xterm-256color) or \(hint)"
    case .unknownTerminal(let t):
      "cowatch: unknown terminal type \"\(t)\" (no terminfo entry); set TERM=xterm-256color or \(hint)"
    case .terminfoMissing: "cowatch: no terminfo database found; install ncurses-base or \(hint)"
    case .unusableTerminal(let t):
      "cowatch: terminal type \"\(t)\" cannot position the cursor; \(hint)"
    case .cursesFailed(let why): "cowatch: could not start the terminal front (\(why)); \(hint)"
    }
  }
}
