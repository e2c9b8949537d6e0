import PlaybackCoordination

/// What a key means on the main screen (when no prompt is open).
public enum FrontCommand: Hashable, Sendable, CaseIterable {
  case playPause
  case back10, forward10, back60, forward60
  case slower, faster
  case next
  case episodes
  case suspendResume
  case autoAdvance
  case chat
  /// React at this moment of the film (a quick pick or a few words).
  case react
  case room
  case join
  case help
  case quit
  case redraw
  /// Scroll the notices and chat back, or forward towards now.
  case olderNotices, newerNotices
  /// Start the player (mpv) again after it quit.
  case restartPlayer
  /// Show the invite link others join with, to copy.
  case invite
  /// The room's queue: what the group watches next.
  case queue
  /// This person's player a step further ahead of the group, or behind (a personal offset).
  case offsetAhead, offsetBehind
  /// Ask everyone whether they are ready; while this person's own question is open, what
  /// to do with it (start anyway, take it back).
  case readyCheck
  /// A key that stands for an action of the group's as it is (``KeyBinding/action``): the
  /// runtime carries it out, asking first where it asks.
  case groupAction
}

/// A key and what it does, mpv-like. The help line and overlay are generated from these.
public struct KeyBinding: Hashable, Sendable {
  public var keys: [Key]
  /// How the key is written in help ("space", "←/→").
  public var keyLabel: String
  /// A word or two for the help line.
  public var short: String
  /// A sentence for the help overlay.
  public var long: String
  public var command: FrontCommand
  /// The action a ``FrontCommand/groupAction`` key stands for.
  public var action: ParticipantAction?
  /// Shown in the one-line help (the rest only in the overlay).
  public var inHelpLine: Bool

  public init(
    _ keys: [Key], _ keyLabel: String, _ short: String, _ long: String, _ command: FrontCommand,
    inHelpLine: Bool = true
  ) {
    self.keys = keys
    self.keyLabel = keyLabel
    self.short = short
    self.long = long
    self.command = command
    self.inHelpLine = inHelpLine
  }

  /// A key that stands for `action`, as headless mode's word for it does.
  public init(
    _ keys: [Key], _ keyLabel: String, _ short: String, _ long: String,
    action: ParticipantAction, inHelpLine: Bool = true
  ) {
    self.init(keys, keyLabel, short, long, .groupAction, inHelpLine: inHelpLine)
    self.action = action
  }

  /// Every binding, in help order. Seeking pairs are listed once each for the help.
  public static let all: [KeyBinding] = [
    KeyBinding([.character(" ")], "space", "play", "play or pause for everyone", .playPause),
    KeyBinding([.left], "←/→", "10s", "seek back / forward 10 seconds", .back10),
    KeyBinding([.right], "→", "+10s", "seek forward 10 seconds", .forward10, inHelpLine: false),
    KeyBinding([.down], "↓/↑", "1min", "seek back / forward 1 minute", .back60),
    KeyBinding([.up], "↑", "+1min", "seek forward 1 minute", .forward60, inHelpLine: false),
    KeyBinding(
      [.character("[")], "[/]", "speed",
      "slower / faster (within the relay's range, 0.25× … 4× by default)", .slower),
    KeyBinding([.character("]")], "]", "faster", "faster", .faster, inHelpLine: false),
    KeyBinding(
      [.character("n")], "n", "next",
      "play what is up next for everyone: the queue's first entry, else the next episode (asks first)",
      .next),
    KeyBinding(
      [.character("p")], "p", "previous",
      "switch everyone back to the episode before this one (asks first)", action: .previous,
      inHelpLine: false),
    KeyBinding([.character("e")], "e", "episodes", "pick an episode", .episodes),
    KeyBinding(
      [.character("u")], "u", "up next",
      "the room's queue (Enter plays one now, d removes, +/- move, x clears); u in the episode list adds one",
      .queue, inHelpLine: false),
    KeyBinding(
      [.character("+"), .character("=")], "+/-", "offset",
      "your player 50 ms further ahead of the group / behind it (sound late through Bluetooth: ahead)",
      .offsetAhead, inHelpLine: false),
    KeyBinding(
      [.character("-")], "-", "behind", "your player 50 ms further behind the group", .offsetBehind,
      inHelpLine: false),
    KeyBinding(
      [.character("l")], "l", "lend",
      "lend your copies to members who lack the episode / stop lending (mpv, with --media)",
      action: .lend(nil), inHelpLine: false),
    KeyBinding(
      [.character("g")], "g", "ready?",
      "ask everyone whether they are ready: the group starts together after a countdown (asked: start anyway or take it back)",
      .readyCheck, inHelpLine: false),
    KeyBinding(
      [.character("y")], "y", "ready", "say you are ready to watch, or not (any time)",
      action: .ready(nil), inHelpLine: false),
    KeyBinding(
      [.character("s")], "s", "step away", "step away (say why) / come back", .suspendResume),
    KeyBinding(
      [.character("a")], "a", "auto", "auto-advance to the next episode on/off", .autoAdvance),
    KeyBinding(
      [.character("c"), .enter], "c", "chat",
      "say something (/me acts it, /tell NAME for some only, /play or /queue LINK; tab completes names)",
      .chat),
    KeyBinding(
      [.character("!")], "!", "react",
      "react at this moment: 1-5 for 👍 😂 😮 😢 ❤️, or a few words (everyone sees it, with the time)",
      .react, inHelpLine: false),
    KeyBinding(
      [.character("o")], "o", "room",
      "the owner's room menu: lock, who controls playback, hand over, remove", .room,
      inHelpLine: false),
    KeyBinding(
      [.character("j")], "j", "join", "join the room's watch session", .join, inHelpLine: false),
    KeyBinding(
      [.character("i")], "i", "invite",
      "the invite link others join with, whole, and copy it to the clipboard", .invite,
      inHelpLine: false),
    KeyBinding([.character("?"), .character("h")], "?", "help", "show / hide this help", .help),
    KeyBinding(
      [.character("q"), .control("c")], "q", "quit", "quit (asks whether to end for everyone)",
      .quit),
    KeyBinding(
      [.control("l")], "ctrl-l", "redraw", "redraw the screen", .redraw, inHelpLine: false),
    KeyBinding(
      [.character("r")], "r", "restart player", "start your player (mpv) again after it quit",
      .restartPlayer, inHelpLine: false),
    KeyBinding(
      [.pageUp], "PgUp/PgDn", "scroll",
      "scroll the notices and chat back / forward (to now)", .olderNotices, inHelpLine: false),
    KeyBinding(
      [.pageDown], "PgDn", "newer", "scroll the notices and chat forward", .newerNotices,
      inHelpLine: false),
  ]

  /// The command a key stands for on the main screen.
  public static func command(for key: Key) -> FrontCommand? { binding(for: key)?.command }

  /// The binding of a key on the main screen (capital letters as their small ones).
  public static func binding(for key: Key) -> KeyBinding? {
    if case .character(let c) = key, c.isUppercase, c.isLetter {
      return binding(for: .character(Character(c.lowercased())))
    }
    return all.first { $0.keys.contains(key) }
  }

  /// The help overlay's lines: pairs folded into one line each.
  public static var helpEntries: [(key: String, text: String)] {
    all.filter {
      $0.inHelpLine
        || [
          .join, .invite, .queue, .offsetAhead, .redraw, .room, .olderNotices, .restartPlayer,
          .groupAction, .react,
        ].contains($0.command)
    }.map {
      ($0.keyLabel, $0.long)
    }
  }

  /// Playback rates offered by `[` and `]`.
  public static let rateSteps: [Double] = [0.25, 0.5, 0.75, 1, 1.25, 1.5, 2]

  /// The next rate step above (`up`) or below the current rate.
  public static func rateStep(from rate: Double, up: Bool) -> Double {
    let epsilon = 0.001
    if up { return rateSteps.first { $0 > rate + epsilon } ?? rateSteps[rateSteps.count - 1] }
    return rateSteps.last { $0 < rate - epsilon } ?? rateSteps[0]
  }
}
