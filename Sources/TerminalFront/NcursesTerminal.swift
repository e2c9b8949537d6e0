import CNcurses
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Rows and columns of the terminal.
public struct TerminalSize: Hashable, Sendable {
  public var rows: Int
  public var cols: Int
  public init(rows: Int, cols: Int) {
    self.rows = rows
    self.cols = cols
  }
}

/// The curses screen, run on a dedicated thread so that neither input nor drawing ever
/// blocks Swift concurrency's pool. It only blits grids and reads keys:
///
///     let terminal = try TerminalSession()
///     terminal.show(ScreenRenderer.render(model, rows: terminal.size.rows, cols: terminal.size.cols))
///     for await key in terminal.keys { … }
///     terminal.stop()
///
/// The curses thread sleeps in `poll` until a key, a grid to show, a signal or the stop
/// request arrives, so an idle front costs nothing; re-render on model changes and on a
/// modest tick (e.g. 4 Hz while playing) for the clock.
///
/// SIGTERM and SIGHUP (the terminal closed) restore the terminal at once, then deliver
/// ``Key/interrupt`` and end ``keys``; SIGINT (Ctrl-C typed) is delivered as the key
/// `.control("c")`, which asks the quit question. SIGWINCH resizes the screen and delivers ``Key/resize``.
public final class TerminalSession: Sendable {
  /// Keys as they are typed; ends after ``stop()`` or a SIGTERM/SIGHUP.
  public let keys: AsyncStream<Key>
  private let shared: TerminalShared

  /// Whether colours are used: by default, when the terminal has them and `NO_COLOR` is
  /// unset or empty (https://no-color.org).
  public let usesColor: Bool

  /// Whether the front can run on this terminal (a terminal, with a TERM curses knows and
  /// can draw on), without touching the screen: checked before connecting, so that nobody
  /// sees someone enter the room and leave at once because their terminal is `dumb`.
  public static func check() throws(TerminalError) {
    guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw .notATerminal }
    guard let term = getenv("TERM").map({ String(cString: $0) }), !term.isEmpty else {
      throw .termUnset
    }
    TerminalSession.setUTF8Locale()
    switch cowatch_check_terminal(term, STDOUT_FILENO) {
    case 1: break
    case -1: throw .terminfoMissing
    case -2: throw .unusableTerminal(term)
    default: throw .unknownTerminal(term)
    }
  }

  /// Starts curses on the terminal, or throws a one-line ``TerminalError`` without touching
  /// the screen. `tickMilliseconds` bounds how long the curses thread sleeps between checks.
  public init(color: Bool? = nil, tickMilliseconds: Int32 = 1000) throws(TerminalError) {
    try Self.check()
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { throw .cursesFailed("no pipe") }
    for fd in fds {
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
    let noColor = getenv("NO_COLOR").map { $0.pointee != 0 } ?? false
    let (stream, continuation) = AsyncStream<Key>.makeStream()
    keys = stream
    let loop = CursesLoop(
      wakeRead: fds[0], wakeWrite: fds[1], continuation: continuation, tick: tickMilliseconds)
    // Our handlers go in first, so that curses leaves SIGINT/SIGTERM/SIGHUP/SIGWINCH to us.
    loop.installSignalHandlers()
    do {
      try loop.startCurses(color: color ?? !noColor)
    } catch {
      loop.restoreSignalHandlers()
      close(fds[0])
      close(fds[1])
      throw error
    }
    usesColor = loop.colors
    shared = loop.shared
    var thread = pthread_t()
    let box = Unmanaged.passRetained(loop).toOpaque()
    let rc = pthread_create(
      &thread, nil,
      { arg in
        let loop = Unmanaged<CursesLoop>.fromOpaque(arg!).takeRetainedValue()
        loop.run()
        return nil
      }, box)
    if rc != 0 {
      Unmanaged<CursesLoop>.fromOpaque(box).release()
      loop.teardown()
      throw .cursesFailed("no thread")
    }
    shared.state.withLock { $0.thread = thread }
  }

  deinit { stop() }

  /// The screen size now; render grids of this size.
  public var size: TerminalSize { shared.state.withLock { $0.size } }

  /// Queues a grid for the curses thread; only the newest queued grid is drawn, and only
  /// the rows that changed since the last one are sent to the terminal.
  public func show(_ grid: CellGrid) {
    shared.state.withLock { state in
      guard !state.stopped else { return }
      state.pending = grid
      shared.wake(&state)
    }
  }

  /// Asks for a full repaint on the next grid (e.g. after Ctrl-L).
  public func repaint() {
    shared.state.withLock { state in
      guard !state.stopped else { return }
      state.repaint = true
      shared.wake(&state)
    }
  }

  /// Puts `text` on the terminal's clipboard with OSC 52 (terminals that allow programs to,
  /// and tmux with `set-clipboard on`, take it; the others ignore it).
  public func copyToClipboard(_ text: String) {
    shared.state.withLock { state in
      guard !state.stopped else { return }
      state.clipboard = text
      shared.wake(&state)
    }
  }

  /// Rings the terminal's bell once (BEL, after the next frame): a chat line named this
  /// person. Terminals show it as they are set to (a sound, a flash, an urgent window).
  public func bell() {
    shared.state.withLock { state in
      guard !state.stopped else { return }
      state.bell = true
      shared.wake(&state)
    }
  }

  /// The OSC 52 sequence that sets the clipboard ("c") to `text`.
  public static func clipboardSequence(_ text: String) -> [UInt8] {
    Array("\u{1b}]52;c;".utf8) + Base64.encode(Array(text.utf8)) + [0x07]
  }

  /// Restores the terminal (endwin) and ends ``keys``. Waits for the curses thread; safe to
  /// call more than once and from any thread but the curses thread.
  public func stop() {
    let thread: pthread_t? = shared.state.withLock { state in
      if !state.stopped {
        state.stopRequested = true
        shared.wake(&state)
      }
      defer { state.thread = nil }
      return state.thread
    }
    if let thread { pthread_join(thread, nil) }
  }

  /// `setlocale(LC_ALL, "")`, falling back to C.UTF-8 when the environment's locale is
  /// missing or not UTF-8 (wide characters need a UTF-8 locale).
  static func setUTF8Locale() {
    let current = setlocale(LC_ALL, "")
    let codeset = String(cString: nl_langinfo(nl_item(CODESET)))
    if current == nil || (codeset != "UTF-8" && codeset != "utf8") {
      if setlocale(LC_ALL, "C.UTF-8") == nil { _ = setlocale(LC_CTYPE, "C.UTF-8") }
    }
  }
}

/// State shared between callers and the curses thread.
final class TerminalShared: Sendable {
  struct State {
    var pending: CellGrid?
    var repaint = false
    /// Text to put on the terminal's clipboard, after the next blit.
    var clipboard: String?
    /// Ring the bell after the next blit.
    var bell = false
    var stopRequested = false
    /// Set by the curses thread once the terminal is restored; nothing is queued after.
    var stopped = false
    var size = TerminalSize(rows: 0, cols: 0)
    var thread: pthread_t?
    var wakeWrite: Int32
  }

  let state: Mutex<State>

  init(wakeWrite: Int32) {
    state = Mutex(State(wakeWrite: wakeWrite))
  }

  /// Wakes the curses thread (call with the lock held, so the pipe is still open).
  func wake(_ state: inout State) {
    var byte: UInt8 = 0
    _ = write(state.wakeWrite, &byte, 1)
  }
}

/// The write end of the wake pipe, for the signal handlers (async-signal-safe `write`).
private let signalWakeFD = Atomic<Int32>(-1)

private func onSignal(_ signal: Int32) {
  var byte = UInt8(truncatingIfNeeded: signal)
  let fd = signalWakeFD.load(ordering: .relaxed)
  if fd >= 0 { _ = write(fd, &byte, 1) }
}

/// Everything that runs on the curses thread. Not shared: handed to the thread at start.
private final class CursesLoop {
  let wakeRead: Int32
  let wakeWrite: Int32
  let continuation: AsyncStream<Key>.Continuation
  let tick: Int32
  let shared: TerminalShared
  var screen: OpaquePointer?
  /// The terminal's output stream (for the bracketed-paste switches).
  var output: UnsafeMutablePointer<FILE>?
  var colors = false
  /// Pasted text becomes one key, never keys (see ``PasteDecoder``).
  var paste = PasteDecoder()
  /// When the paste under way began (monotonic seconds), to give up on one never closed.
  var pasteStarted: Double?
  var shown: CellGrid?
  var oldHandlers: [Int32: sigaction] = [:]

  /// SIGHUP: the terminal was closed (its window, its tmux pane) — the person is gone, as
  /// with ctrl-c, and leaves rather than lingering as "reconnecting" under their name.
  static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGWINCH]

  init(wakeRead: Int32, wakeWrite: Int32, continuation: AsyncStream<Key>.Continuation, tick: Int32)
  {
    self.wakeRead = wakeRead
    self.wakeWrite = wakeWrite
    self.continuation = continuation
    self.tick = tick
    shared = TerminalShared(wakeWrite: wakeWrite)
  }

  func installSignalHandlers() {
    signalWakeFD.store(wakeWrite, ordering: .relaxed)
    for sig in Self.signals {
      var action = sigaction()
      action.__sigaction_handler.sa_handler = { onSignal($0) }
      sigemptyset(&action.sa_mask)
      action.sa_flags = 0
      var old = sigaction()
      sigaction(sig, &action, &old)
      oldHandlers[sig] = old
    }
  }

  func restoreSignalHandlers() {
    for (sig, old) in oldHandlers {
      var old = old
      sigaction(sig, &old, nil)
    }
    oldHandlers = [:]
    signalWakeFD.store(-1, ordering: .relaxed)
  }

  func startCurses(color: Bool) throws(TerminalError) {
    guard let out = fdopen(STDOUT_FILENO, "w"), let input = fdopen(STDIN_FILENO, "r") else {
      throw .cursesFailed("cannot open the terminal streams")
    }
    guard let screen = newterm(nil, out, input) else { throw .cursesFailed("newterm failed") }
    self.screen = screen
    output = out
    // Bracketed paste: the terminal marks pasted text, which then never runs as keys.
    fputs("\u{1b}[?2004h", out)
    fflush(out)
    set_term(screen)
    let win = cowatch_stdscr()
    cbreak()
    noecho()
    nonl()
    keypad(win, true)
    nodelay(win, true)
    leaveok(win, true)
    _ = curs_set(0)
    set_escdelay(25)
    if color && has_colors() {
      start_color()
      use_default_colors()
      colors = true
      for role in ColorRole.allCases {
        let (fg, _) = Self.color(for: role)
        init_pair(Int16(role.rawValue) + 1, fg, -1)
      }
    }
    updateSize()
  }

  /// Foreground colour for a role, and whether it needs dim to look secondary.
  static func color(for role: ColorRole) -> (Int16, Bool) {
    func c(_ v: Int32) -> Int16 { Int16(v) }
    return switch role {
    case .normal: (-1, false)
    case .title, .accent, .you, .progress, .barCyan: (c(COLOR_CYAN), false)
    case .playing, .barGreen: (c(COLOR_GREEN), false)
    case .paused, .warning, .barYellow: (c(COLOR_YELLOW), false)
    case .waiting, .chat, .barMagenta: (c(COLOR_MAGENTA), false)
    case .error, .barRed: (c(COLOR_RED), false)
    case .muted: (-1, true)
    case .frame, .barBlue: (c(COLOR_BLUE), false)
    case .barWhite: (c(COLOR_WHITE), false)
    }
  }

  func updateSize() {
    var rows: Int32 = 0
    var cols: Int32 = 0
    cowatch_getmaxyx(cowatch_stdscr(), &rows, &cols)
    shared.state.withLock { $0.size = TerminalSize(rows: Int(rows), cols: Int(cols)) }
  }

  func run() {
    var fds = [
      pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
      pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
    ]
    while true {
      _ = poll(&fds, 2, tick)
      var interrupted = false
      var controlC = false
      var resized = false
      var buffer = [UInt8](repeating: 0, count: 64)
      while true {
        let n = read(wakeRead, &buffer, buffer.count)
        guard n > 0 else { break }
        for b in buffer.prefix(n) {
          if b == UInt8(SIGTERM) || b == UInt8(SIGHUP) { interrupted = true }
          if b == UInt8(SIGINT) { controlC = true }
          if b == UInt8(SIGWINCH) { resized = true }
        }
      }
      // Ctrl-C typed in the front is a key like q (the quit question; twice leaves at
      // once), not a signal to go without asking; SIGTERM and a closed terminal are.
      if controlC, !interrupted { continuation.yield(.control("c")) }
      if interrupted {
        teardown()
        continuation.yield(.interrupt)
        continuation.finish()
        return
      }
      if resized { resize() }
      readKeys()
      let (grid, repaint, stop, clipboard, bell) = shared.state.withLock { state in
        defer {
          state.pending = nil
          state.repaint = false
          state.clipboard = nil
          state.bell = false
        }
        return (state.pending, state.repaint, state.stopRequested, state.clipboard, state.bell)
      }
      if stop {
        teardown()
        continuation.finish()
        return
      }
      if repaint {
        shown = nil
        clearok(cowatch_stdscr(), true)
      }
      if let grid { blit(grid) }
      if let clipboard {
        // After curses has written its frame, straight to the terminal: it draws nothing.
        let bytes = TerminalSession.clipboardSequence(clipboard)
        _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
      }
      if bell {
        // Straight to the terminal too: curses' beep() would wait for the next refresh.
        let bel: [UInt8] = [0x07]
        _ = bel.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
      }
    }
  }

  func resize() {
    var rows: Int32 = 0
    var cols: Int32 = 0
    if cowatch_winsize(STDOUT_FILENO, &rows, &cols) == 0, rows > 0, cols > 0 {
      resize_term(rows, cols)
    }
    updateSize()
    shown = nil
    continuation.yield(.resize)
  }

  func readKeys() {
    var ch: wint_t = 0
    while true {
      let rc = wget_wch(cowatch_stdscr(), &ch)
      if rc == ERR {
        // Input went quiet: a held-back ESC was the Esc key. A paste whose end has not
        // come in 2 s is taken as it is.
        if !paste.isPasting {
          pasteStarted = nil
          for key in paste.flush() { continuation.yield(key) }
        } else if let started = pasteStarted, Self.seconds() - started > 2 {
          pasteStarted = nil
          for key in paste.abandonPaste() { continuation.yield(key) }
        }
        return
      }
      var key: Key?
      if rc == KEY_CODE_YES {
        if Int32(ch) == KEY_RESIZE {
          resize()
          continue
        }
        key = KeyDecoder.functionKey(Int32(ch))
      } else {
        key = KeyDecoder.characterKey(UInt32(ch))
      }
      guard let key else { continue }
      let wasPasting = paste.isPasting
      for decoded in paste.feed(key) { continuation.yield(decoded) }
      if paste.isPasting, !wasPasting { pasteStarted = Self.seconds() }
    }
  }

  func blit(_ grid: CellGrid) {
    let size = shared.state.withLock { $0.size }
    let full = shown == nil || shown?.rows != grid.rows || shown?.cols != grid.cols
    // After a resize the terminal may hold reflowed leftovers: clear it for real.
    if full { wclear(cowatch_stdscr()) }
    let rows = min(grid.rows, size.rows)
    let cols = min(grid.cols, size.cols)
    var wcs = [wchar_t](repeating: 0, count: 6)
    for r in 0..<rows {
      if !full, let shown, rowEqual(shown, grid, r) { continue }
      for c in 0..<cols {
        let cell = grid[r, c]
        if cell.isContinuation { continue }
        if cell.width == 2 && c + 1 >= cols { continue }
        var n = 0
        for scalar in CharacterWidth.drawn(cell.character) {
          if n == 5 { break }
          wcs[n] = wchar_t(bitPattern: scalar.value)
          n += 1
        }
        wcs[n] = 0
        let (attrs, pair) = attributes(cell.style)
        _ = cowatch_put_cell(Int32(r), Int32(c), wcs, attrs, pair)
      }
    }
    wnoutrefresh(cowatch_stdscr())
    doupdate()
    shown = grid
  }

  private func rowEqual(_ a: CellGrid, _ b: CellGrid, _ row: Int) -> Bool {
    let start = row * a.cols
    return a.cells[start..<(start + a.cols)] == b.cells[start..<(start + b.cols)]
  }

  private func attributes(_ style: CellStyle) -> (UInt32, Int16) {
    var attrs = cowatch_a_normal()
    if style.bold { attrs |= cowatch_a_bold() }
    if style.reverse { attrs |= cowatch_a_reverse() }
    let (_, dimRole) = Self.color(for: style.role)
    if style.dim || dimRole { attrs |= cowatch_a_dim() }
    guard colors else { return (attrs, 0) }
    return (attrs, Int16(style.role.rawValue) + 1)
  }

  /// Restores the terminal; afterwards nothing more is queued or woken.
  static func seconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
  }

  func teardown() {
    shared.state.withLock { $0.stopped = true }
    if let output {
      fputs("\u{1b}[?2004l", output)
      fflush(output)
      self.output = nil
    }
    if let screen {
      endwin()
      delscreen(screen)
      self.screen = nil
    }
    restoreSignalHandlers()
    close(wakeRead)
    close(wakeWrite)
  }
}

/// curses input codes to ``Key``s.
enum KeyDecoder {
  static func characterKey(_ value: UInt32) -> Key? {
    switch value {
    case 10, 13: return .enter
    case 9: return .tab
    case 27: return .escape
    case 8, 127: return .backspace
    case 1...26: return .control(Character(Unicode.Scalar(value + 96)!))
    default:
      guard let scalar = Unicode.Scalar(value), value >= 32 else { return nil }
      return .character(Character(scalar))
    }
  }

  static func functionKey(_ code: Int32) -> Key? {
    switch code {
    case KEY_UP: .up
    case KEY_DOWN: .down
    case KEY_LEFT: .left
    case KEY_RIGHT: .right
    case KEY_ENTER: .enter
    case KEY_BACKSPACE: .backspace
    case KEY_DC: .delete
    case KEY_HOME: .home
    case KEY_END: .end
    case KEY_PPAGE: .pageUp
    case KEY_NPAGE: .pageDown
    case KEY_BTAB: .backTab
    default: nil
    }
  }
}
