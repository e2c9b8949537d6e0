/// What `cowatch doctor` found out about this machine, before it is judged: gathered by
/// ``MachineSurvey`` (or made up by a test), read by ``Checkup``.
public struct MachineFacts: Hashable, Sendable {
  /// A program looked for on `PATH`.
  public enum Program: Hashable, Sendable {
    case missing
    /// Found at `path`; `version` is the first line its `--version` printed, if any.
    case found(path: String, version: String?)
  }

  /// Whether mpv played a second of something through Cowatch's own driver.
  public enum Playback: Hashable, Sendable {
    /// Not tried (no usable mpv), and why.
    case notTried(String)
    /// It played a second of `what`, by mpv's own clock.
    case played(what: String)
    case failed(what: String, reason: String)
  }

  public struct Terminal: Hashable, Sendable {
    /// Whether standard output is a terminal at all.
    public var isTerminal: Bool
    public var columns: Int?
    public var rows: Int?
    /// The colours terminfo says `TERM` has (nil: unknown terminal).
    public var colors: Int?
    public var term: String?

    public init(
      isTerminal: Bool, columns: Int? = nil, rows: Int? = nil, colors: Int? = nil,
      term: String? = nil
    ) {
      self.isTerminal = isTerminal
      self.columns = columns
      self.rows = rows
      self.colors = colors
      self.term = term
    }
  }

  /// A directory Cowatch writes to: `state` (certificates, logs, copies of rooms) or
  /// `config` (known relays).
  public struct Directory: Hashable, Sendable {
    public var role: String
    public var path: String
    /// Why it cannot be written to; nil when it can.
    public var problem: String?

    public init(role: String, path: String, problem: String? = nil) {
      self.role = role
      self.path = path
      self.problem = problem
    }
  }

  public struct KnownRelays: Hashable, Sendable {
    public var path: String
    /// Relays trusted so far (lines of the file that name one).
    public var count: Int
    /// Why the file could not be read, when it exists.
    public var problem: String?

    public init(path: String, count: Int, problem: String? = nil) {
      self.path = path
      self.count = count
      self.problem = problem
    }
  }

  /// What the home router said when asked for its outside address (nothing is mapped).
  public enum Router: Hashable, Sendable {
    case answered(method: String, outside: String?)
    /// No router answered, with each way's reason.
    case silent([String])
    /// Not asked (`--no-router`).
    case notAsked
  }

  public struct Listening: Hashable, Sendable {
    public var port: Int
    /// Why the port cannot be listened on beyond loopback; nil when it can.
    public var problem: String?
    /// This machine's addresses beyond loopback (what a friend on the network dials).
    public var addresses: [String]

    public init(port: Int, problem: String? = nil, addresses: [String]) {
      self.port = port
      self.problem = problem
      self.addresses = addresses
    }
  }

  /// Whether the system says its clock is synchronised (NTP); nil: it does not say.
  public var clockSynchronised: Bool?

  public var mpv: Program
  public var playback: Playback
  public var ytdlp: Program
  public var terminal: Terminal
  public var directories: [Directory]
  public var knownRelays: KnownRelays
  public var router: Router
  public var listening: Listening

  public init(
    mpv: Program, playback: Playback, ytdlp: Program, terminal: Terminal,
    directories: [Directory], knownRelays: KnownRelays, router: Router, listening: Listening,
    clockSynchronised: Bool?
  ) {
    self.mpv = mpv
    self.playback = playback
    self.ytdlp = ytdlp
    self.terminal = terminal
    self.directories = directories
    self.knownRelays = knownRelays
    self.router = router
    self.listening = listening
    self.clockSynchronised = clockSynchronised
  }
}
