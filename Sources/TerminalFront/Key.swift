/// A key press as the front sees it, independent of curses.
public enum Key: Hashable, Sendable, CustomStringConvertible {
  /// A printable character (including space).
  case character(Character)
  case up, down, left, right
  case enter, escape, tab, backTab, backspace, delete
  case home, end, pageUp, pageDown
  /// A control chord other than those above, e.g. `.control("l")` for Ctrl-L.
  case control(Character)
  /// The terminal changed size; the grid should be rendered at the new size.
  case resize
  /// SIGINT, SIGTERM or SIGHUP (the terminal closed): the terminal has already been
  /// restored; the app should wind down.
  case interrupt
  /// Text the person pasted (bracketed paste): text, never keys, whatever it holds.
  case paste(String)

  public var description: String {
    switch self {
    case .character(" "): "space"
    case .character(let c): String(c)
    case .up: "↑"
    case .down: "↓"
    case .left: "←"
    case .right: "→"
    case .enter: "enter"
    case .escape: "esc"
    case .tab: "tab"
    case .backTab: "shift-tab"
    case .backspace: "backspace"
    case .delete: "delete"
    case .home: "home"
    case .end: "end"
    case .pageUp: "page-up"
    case .pageDown: "page-down"
    case .control(let c): "ctrl-\(c)"
    case .resize: "resize"
    case .interrupt: "interrupt"
    case .paste(let text): "paste of \(text.count) characters"
    }
  }
}
