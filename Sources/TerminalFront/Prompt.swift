import LinkConsent
import Narration
import PlaybackCoordination

/// A modal question, driven by the keyboard: arrows or tab move the selection, Enter
/// chooses, Esc cancels, and each option's hotkey (its first letter, or a digit in lists)
/// chooses it at once. A value type: ``handle(_:)`` returns what happened.
public struct Prompt: Hashable, Sendable {
  /// What the prompt is about; the controller turns its outcome into actions.
  public enum Kind: Hashable, Sendable {
    /// Someone started a watch session in the room: Join / Not now.
    case sessionOffered(sessionID: UInt64)
    /// Starting `item` while others are in the room: Watch together / Only me / Cancel.
    case startSession(item: ItemID)
    /// Picking `item` while others watch something else, without having joined them:
    /// Switch everyone / Join them / Only me / Cancel. (Starting a session of one's own
    /// would end theirs.)
    case replaceSession(item: ItemID)
    /// "Switch everyone to S1E3 — title?" Yes / No.
    case confirmSwitch(item: ItemID)
    /// End for everyone / Only me / Cancel.
    case quit
    /// Quitting the front of the process that runs the room's relay, with others in the
    /// room: Yes / Cancel.
    case leaveHostedRoom
    /// Quitting while the relay cannot be reached: Leave / Stay.
    case quitUnreachable
    /// A list of episodes to pick from.
    case episodePicker
    /// A line of text to say to everyone.
    case chat
    /// Coming back after stepping away: catch up with the group, or bring everyone to
    /// `position` (where this player is).
    case comeBack(position: Double)
    /// The owner's room menu.
    case roomMenu
    /// Whom to hand the room to (`handOver`) or remove.
    case pickPerson(handOver: Bool)
    /// "Remove bob from the room?" Yes / No: a removal cannot be undone from here.
    case confirmRemove(ParticipantID)
    /// Yes / No before handing the room over.
    case confirmHandOver(ParticipantID)
    /// Why this person steps away (SharePlay's suspension reasons, or one of their own).
    case stepAway
    /// A reason of their own, typed.
    case stepAwayReason
    /// A reaction at this moment: a quick pick, or a few words of one's own.
    case react
    /// A reaction of one's own, typed.
    case reactText
    /// The invite link, whole, to copy.
    case invite(String)
    /// The room's queue: play an entry now, remove, move, clear.
    case queue
    /// "Switch everyone to S1E3 — title (from the queue)?" Yes / No.
    case confirmPlayQueued(entry: UInt64, item: ItemID)
    /// Someone else started or queued a link of a site this person does not trust: Open /
    /// Always for this site / Not this one.
    case linkConsent(link: String)
    /// A question an action asked (the runtime's ``ActionQuestion``): Yes answers it with
    /// `confirm`, No with `cancel`.
    case question(ActionQuestion)
    /// Someone asked whether everyone is ready (the check opened at `since`): Ready / Not
    /// yet.
    case readyAsked(since: GroupInstant)
    /// The asker's (or owner's) own ready check: Start anyway / Take it back / Keep waiting.
    case readyCheckMenu
    /// "last time: Harbour Lights S1E3 at 21:14, with ann and bob — continue?" Yes / No: a
    /// host offered to pick the room up where it was left (Yes is `continue`).
    case lastTime
  }

  /// What an option stands for.
  public enum Choice: Hashable, Sendable {
    case join, notNow
    case watchTogether, onlyMe, switchEveryone
    case yes, no
    case endForEveryone, leaveOnlyMe
    case catchUp, bringEveryone
    case cancel
    case item(ItemID)
    case lock(Bool)
    case control(PlaybackControl)
    case handOver, removeSomeone
    case person(ParticipantID)
    case suspend(SuspensionReason)
    case otherReason
    /// A reaction to send as it is.
    case reaction(String)
    /// A reaction of one's own, to type.
    case otherReaction
    case copy
    /// A queue entry, by its number.
    case queueEntry(UInt64)
    /// An answer about a link someone else wants to play.
    case link(LinkAnswer)
    /// This person's answer to a ready check.
    case ready(Bool)
    case startAnyway, takeBack
    /// Whether the room starts only when everyone is ready.
    case startWhenAllReady(Bool)
    case keep(Bool)
  }

  public struct Option: Hashable, Sendable {
    public var label: String
    /// Chooses the option directly (case-insensitive).
    public var hotkey: Character?
    public var choice: Choice
    /// Right-aligned extra text in lists (e.g. a duration).
    public var detail: String?
    /// Marked in lists (e.g. the episode playing now).
    public var isCurrent: Bool

    public init(
      _ label: String, hotkey: Character? = nil, choice: Choice, detail: String? = nil,
      isCurrent: Bool = false
    ) {
      self.label = label
      self.hotkey = hotkey ?? label.first
      self.choice = choice
      self.detail = detail
      self.isCurrent = isCurrent
    }
  }

  public enum Layout: Hashable, Sendable {
    /// A row of buttons.
    case buttons
    /// A vertical list that scrolls.
    case list
    /// A line of text input.
    case input
  }

  public var kind: Kind
  public var title: String
  public var message: String
  public var options: [Option]
  public var selection: Int
  /// The text typed so far (input prompts).
  public var input: String
  /// Longest input accepted, in characters.
  public var inputLimit: Int
  /// Names `@` and Tab complete in the input (the others in the room).
  public var completions: [String] = []
  /// The last key or paste met ``inputLimit`` and some of it was left out.
  public private(set) var inputCut = false
  /// Characters of ``input`` after the cursor. Counted from the end, so that the cursor
  /// stays at the end (where typing happens) when the input is set from outside.
  private var afterCursor = 0

  /// Characters of ``input`` before the cursor.
  public var cursor: Int {
    let count = input.count
    return count - min(afterCursor, count)
  }

  public init(
    kind: Kind, title: String, message: String, options: [Option], selection: Int = 0,
    input: String = "",
    inputLimit: Int = 400
  ) {
    self.kind = kind
    self.title = title
    self.message = message
    self.options = options
    self.selection = min(max(0, selection), max(0, options.count - 1))
    self.input = input
    self.inputLimit = inputLimit
  }

  public var layout: Layout {
    switch kind {
    case .episodePicker, .roomMenu, .pickPerson, .stepAway, .queue, .react: .list
    case .chat, .stepAwayReason, .reactText: .input
    default: .buttons
    }
  }

  public var selectedOption: Option? {
    options.indices.contains(selection) ? options[selection] : nil
  }

  /// What a key did to the prompt.
  public enum Outcome: Hashable, Sendable {
    /// Still open (the selection or input may have changed).
    case pending
    case chosen(Choice)
    /// Enter in an input prompt, with the text.
    case submitted(String)
    case cancelled
    /// One of the list's own actions (``listActions``) on `choice`, the selected option
    /// (nil in an empty list): the list stays what it was.
    case acted(ListAction, Choice?)
  }

  /// What a list does besides choosing, each on a key of its own.
  public enum ListAction: Hashable, Sendable {
    /// The episode list: add the selected episode to the room's queue (`u`).
    case queue
    /// The queue: take the selected entry out (`d`, Delete), move it up (`+`) or down
    /// (`-`), or clear the queue (`x`).
    case remove, moveUp, moveDown, clear
  }

  /// The list's own actions, by their keys: one table, which the keys are read through.
  public var listActions: [Character: ListAction] {
    switch kind {
    case .episodePicker: ["u": .queue]
    case .queue: ["d": .remove, "+": .moveUp, "-": .moveDown, "x": .clear]
    default: [:]
    }
  }

  public mutating func handle(_ key: Key) -> Outcome {
    switch layout {
    case .input: return handleInput(key)
    case .buttons, .list: return handleSelection(key)
    }
  }

  /// A line editor as a shell's: ← → home end (ctrl-a, ctrl-e) move; backspace and
  /// delete remove before and after the cursor; ctrl-u, ctrl-w and ctrl-k cut to the
  /// start, the word before, and to the end; typing, pastes and Tab work at the cursor.
  private mutating func handleInput(_ key: Key) -> Outcome {
    inputCut = false
    afterCursor = min(afterCursor, input.count)
    var head = String(input.dropLast(afterCursor))
    var tail = String(input.suffix(afterCursor))
    switch key {
    case .enter: return .submitted(input)
    case .escape: return .cancelled
    case .left:
      if !head.isEmpty { tail.insert(head.removeLast(), at: tail.startIndex) }
    case .right:
      if !tail.isEmpty { head.append(tail.removeFirst()) }
    case .home, .control("a"):
      tail = head + tail
      head = ""
    case .end, .control("e"):
      head += tail
      tail = ""
    case .backspace:
      if !head.isEmpty { head.removeLast() }
    case .delete:
      if !tail.isEmpty { tail.removeFirst() }
    case .tab: head = completeName(head, room: inputLimit - tail.count)
    case .control("u"): head = ""
    case .control("w"):
      while head.last == " " { head.removeLast() }
      while let last = head.last, last != " " { head.removeLast() }
    case .control("k"): tail = ""
    case .character(let c):
      if head.count + tail.count < inputLimit { head.append(c) } else { inputCut = true }
    case .paste(let text):
      // Text, whatever it holds: line breaks become spaces, controls (an ESC included)
      // are dropped.
      for c in text {
        guard head.count + tail.count < inputLimit else {
          inputCut = true
          break
        }
        if c.isNewline || c == "\t" {
          head.append(" ")
        } else if !c.unicodeScalars.contains(where: DisplayText.isUnsafe) {
          head.append(c)
        }
      }
    default: break
    }
    input = head + tail
    afterCursor = tail.count
    return .pending
  }

  private mutating func handleSelection(_ key: Key) -> Outcome {
    if case .character(let c) = key, let action = listActions[Character(c.lowercased())] {
      return .acted(action, selectedOption?.choice)
    }
    if key == .delete, listActions.values.contains(.remove) {
      return .acted(.remove, selectedOption?.choice)
    }
    guard !options.isEmpty else { return key == .escape || key == .enter ? .cancelled : .pending }
    let isList = layout == .list
    switch key {
    case .enter:
      return .chosen(options[selection].choice)
    case .escape:
      return .cancelled
    case .left where !isList, .up, .backTab:
      selection = isList ? max(0, selection - 1) : (selection + options.count - 1) % options.count
    case .right where !isList, .down, .tab:
      selection = isList ? min(options.count - 1, selection + 1) : (selection + 1) % options.count
    case .pageUp: selection = max(0, selection - 10)
    case .pageDown: selection = min(options.count - 1, selection + 10)
    case .home: selection = 0
    case .end: selection = options.count - 1
    case .character(let c):
      if isList, let digit = c.wholeNumberValue, digit >= 1, digit <= options.count, digit <= 9 {
        selection = digit - 1
        return .chosen(options[selection].choice)
      }
      if isList, c == "q" { return .cancelled }
      let lower = Character(c.lowercased())
      if let i = options.firstIndex(where: { $0.hotkey.map { Character($0.lowercased()) } == lower }
      ) {
        selection = i
        return .chosen(options[i].choice)
      }
    default: break
    }
    return .pending
  }
}

extension Prompt {
  /// Someone else wants everyone to play `link`, of a site this person does not trust:
  /// their player would fetch it (their address goes to that site), so it asks first.
  public static func linkConsent(link: String, from name: String?) -> Prompt {
    let host = LinkItem.host(of: link)
    let shown = link.count > 160 ? String(link.prefix(159)) + "…" : link
    return Prompt(
      kind: .linkConsent(link: link), title: "Open a link?",
      message:
        "\(name ?? "Someone") wants to play \(shown)\n\(host) is not one of your trusted sites: your player would fetch it from there.",
      options: [
        Option("Open", choice: .link(.open)),
        Option("Always for \(TrustedSites.site(of: host))", choice: .link(.alwaysForSite)),
        Option("Not this one", choice: .link(.notThisOne)),
      ])
  }

  /// "ann asks: ready?" Ready / Not yet.
  public static func readyAsked(check: ReadyCheck, local: ParticipantID?) -> Prompt {
    Prompt(
      kind: .readyAsked(since: check.since), title: "Ready?",
      message:
        "\(check.askedByName) asks whether everyone is ready. The group starts together, after a countdown, once all are.",
      options: [
        Option("Ready", choice: .ready(true)), Option("Not yet", choice: .ready(false)),
      ])
  }

  /// The asker's own question, still open: who it waits for, and what to do with it.
  public static func readyCheckMenu(waitingFor: [String]) -> Prompt {
    let who = waitingFor.isEmpty ? "nobody" : waitingFor.joined(separator: ", ")
    return Prompt(
      kind: .readyCheckMenu, title: "Is everyone ready?",
      message: "Waiting for \(who).",
      options: [
        Option("Start anyway", choice: .startAnyway), Option("Take it back", choice: .takeBack),
        Option("Keep waiting", hotkey: "k", choice: .cancel),
      ])
  }

  /// Someone started a watch session: Join / Not now.
  public static func sessionOffered(
    sessionID: UInt64, startedBy: String?, seriesTitle: String, item: ItemInfo
  ) -> Prompt {
    let who = startedBy ?? "Someone"
    return Prompt(
      kind: .sessionOffered(sessionID: sessionID), title: "Watch together?",
      message: "\(who) started \(seriesTitle) — \(EpisodeLabel.describe(item)).",
      options: [Option("Join", choice: .join), Option("Not now", choice: .notNow)])
  }

  /// Starting an item while others are in the room.
  public static func startSession(item: ItemInfo, seriesTitle: String, others: [String]) -> Prompt {
    let names = others.isEmpty ? "the room" : others.joined(separator: ", ")
    return Prompt(
      kind: .startSession(item: item.id), title: "Start watching",
      message: "Watch \(seriesTitle) — \(EpisodeLabel.describe(item)) together with \(names)?",
      options: [
        Option("Watch together", choice: .watchTogether), Option("Only me", choice: .onlyMe),
        Option("Cancel", choice: .cancel),
      ])
  }

  /// Picking an episode while `watchers` watch `current` and this person has not joined
  /// them.
  public static func replaceSession(
    item: ItemInfo, seriesTitle: String, current: ItemInfo, watchers: [String]
  ) -> Prompt {
    let names = watchers.joined(separator: ", ")
    let verb = watchers.count == 1 ? "is" : "are"
    return Prompt(
      kind: .replaceSession(item: item.id), title: "They are watching",
      message:
        "\(names) \(verb) watching \(EpisodeLabel.describe(current)). Switch everyone to \(seriesTitle) — \(EpisodeLabel.describe(item)), or join them?",
      options: [
        Option("Switch everyone", choice: .switchEveryone), Option("Join them", choice: .join),
        Option("Only me", choice: .onlyMe), Option("Cancel", choice: .cancel),
      ],
      // Enter pressed without reading joins them: it changes nothing for anyone else,
      // where "Switch everyone" would end the episode they are in the middle of.
      selection: 1)
  }

  /// "Switch everyone to S1E3 — title?"
  /// The question an action asked, as the front asks it.
  public static func question(_ question: ActionQuestion) -> Prompt {
    switch question {
    case .confirmSwitch(let item):
      Prompt(
        kind: .question(question), title: "Switch episode",
        message: "Switch everyone to \(EpisodeLabel.describe(item))?",
        options: [Option("Yes", choice: .yes), Option("No", choice: .no)])
    }
  }

  /// The room's last night, offered to a host as the room opens.
  public static func lastTime(_ offer: String) -> Prompt {
    Prompt(
      kind: .lastTime, title: "Continue where you left off",
      message: offer.prefix(1).uppercased() + offer.dropFirst(),
      options: [Option("Yes", choice: .yes), Option("No", choice: .no)])
  }

  public static func confirmSwitch(to item: ItemInfo) -> Prompt {
    Prompt(
      kind: .confirmSwitch(item: item.id), title: "Switch episode",
      message: "Switch everyone to \(EpisodeLabel.describe(item))?",
      options: [Option("Yes", choice: .yes), Option("No", choice: .no)])
  }

  /// The invite others join with, whole (people copy it, fingerprint and all), and a way
  /// to put it on the clipboard.
  public static func invite(_ text: String) -> Prompt {
    Prompt(
      kind: .invite(text), title: "Invite",
      message: "Others join with:\n\(text)",
      options: [
        Option("Copy to clipboard", choice: .copy), Option("Close", hotkey: "x", choice: .cancel),
      ])
  }

  /// Quitting while in a watch session.
  public static func quit(others: Int) -> Prompt {
    let message =
      others > 0
      ? "You are watching with \(others) other\(others == 1 ? "" : "s"). End the session for everyone, or leave only yourself?"
      : "End the watch session, or leave only yourself?"
    return Prompt(
      kind: .quit, title: "Quit", message: message,
      options: [
        Option("End for everyone", choice: .endForEveryone),
        Option("Only me", choice: .leaveOnlyMe),
        Option("Cancel", choice: .cancel),
      ], selection: 1)
  }

  /// Quitting while the relay cannot be reached: neither an end for everyone nor a goodbye
  /// can go, so the others will read that this person lost the connection. Stay is
  /// selected: the relay may be back in a moment.
  public static func quitUnreachable() -> Prompt {
    Prompt(
      kind: .quitUnreachable, title: "Quit",
      message:
        "The relay can't be reached: the session goes on for the others, who will read that you lost the connection. Leave anyway?",
      options: [Option("Leave", choice: .leaveOnlyMe), Option("Stay", choice: .cancel)],
      selection: 1)
  }

  /// Quitting `cowatch host` while others are in the room: its relay is this process, so
  /// leaving ends the room for them — which "Only me" would otherwise do without a word.
  /// Cancel is selected: Enter must not end the room by accident.
  public static func leaveHostedRoom(others: [String]) -> Prompt {
    Prompt(
      kind: .leaveHostedRoom, title: "Quit",
      message:
        "Nobody else's machine can carry this room on: leaving ends it for \(others.joined(separator: ", ")). Leave anyway?",
      options: [Option("Yes", choice: .yes), Option("Cancel", choice: .cancel)], selection: 1)
  }

  /// The room's queue, in order, each entry with who added it and how long it is;
  /// `selected`: the entry to keep selected (after an edit), else the first.
  public static func queue(_ entries: [QueueEntry], selected: UInt64? = nil) -> Prompt {
    let options = entries.enumerated().map { place, entry in
      Option(
        "\(place + 1). \(entry.info.map(EpisodeLabel.describe) ?? EpisodeLabel.code(entry.item))",
        hotkey: nil, choice: .queueEntry(entry.id),
        detail: "\(entry.addedByName) · \(TimeFormat.clock(entry.info?.duration ?? 0))")
    }.map {
      var o = $0
      o.hotkey = nil
      return o
    }
    let selection = selected.flatMap { id in entries.firstIndex { $0.id == id } } ?? 0
    return Prompt(
      kind: .queue, title: "Up next",
      message: entries.isEmpty
        ? "Nothing queued yet: in the episode list (e), u adds the selected episode."
        : "Enter plays now · d removes · +/- move · x clears",
      options: options, selection: selection)
  }

  /// Playing a queue entry now switches everyone: Yes / No.
  public static func confirmPlayQueued(entry: UInt64, item: ItemInfo) -> Prompt {
    Prompt(
      kind: .confirmPlayQueued(entry: entry, item: item.id), title: "Play from the queue",
      message: "Switch everyone to \(EpisodeLabel.describe(item)) now?",
      options: [Option("Yes", choice: .yes), Option("No", choice: .no)])
  }

  /// Episodes to pick from; the current one is marked and selected.
  public static func episodePicker(series: [SeriesInfo], current: ItemID?) -> Prompt {
    var options: [Option] = []
    for s in series {
      for item in s.items {
        let label =
          series.count > 1
          ? "\(s.title) · \(EpisodeLabel.describe(item))" : EpisodeLabel.describe(item)
        options.append(
          Option(
            label, hotkey: nil, choice: .item(item.id), detail: TimeFormat.clock(item.duration),
            isCurrent: item.id == current))
      }
    }
    let selected = options.firstIndex { $0.isCurrent } ?? 0
    let title = series.count == 1 ? series[0].title : "Episodes"
    return Prompt(
      kind: .episodePicker, title: title,
      message: options.isEmpty ? "Nothing to watch." : "Enter watches it · u adds it to the queue",
      options: options.map {
        var o = $0
        o.hotkey = nil
        return o
      }, selection: selected)
  }

  /// Coming back after stepping away (`end()` or `end(proposingNewTime:)`).
  /// `canBringEveryone`: false when the owner keeps playback to themselves (the relay
  /// would refuse it).
  public static func comeBack(
    position: Double, groupPosition: Double?, canBringEveryone: Bool = true
  ) -> Prompt {
    let group = groupPosition.map { " (the group is at \(TimeFormat.clock($0)))" } ?? ""
    guard canBringEveryone else {
      return Prompt(
        kind: .comeBack(position: position), title: "Come back",
        message: "Catch up with the group\(group)?",
        options: [
          Option("Catch up", choice: .catchUp), Option("Cancel", hotkey: "x", choice: .cancel),
        ])
    }
    return Prompt(
      kind: .comeBack(position: position), title: "Come back",
      message:
        "Catch up with the group\(group), or bring everyone to \(TimeFormat.clock(position)), where you are?",
      options: [
        Option("Catch up", choice: .catchUp),
        Option("Bring everyone here", choice: .bringEveryone),
        Option("Cancel", hotkey: "x", choice: .cancel),
      ])
  }

  /// The owner's menu for the room, saying how it stands now. `relayKeepsRooms`: keeping
  /// the room for the next night is offered (it is always offered back once kept).
  public static func roomMenu(control: RoomControl, relayKeepsRooms: Bool = false) -> Prompt {
    let lock =
      control.locked
      ? Option("Unlock the room: let new people in", hotkey: "l", choice: .lock(false))
      : Option("Lock the room: nobody new gets in", hotkey: "l", choice: .lock(true))
    let playback =
      control.playback == .owner
      ? Option("Everyone controls playback", hotkey: "p", choice: .control(.everyone))
      : Option(
        "Only I control playback (the others can still step away)", hotkey: "p",
        choice: .control(.owner))
    let ready =
      control.startWhenAllReady
      ? Option(
        "Let a play start without asking who is ready", hotkey: "w",
        choice: .startWhenAllReady(false))
      : Option(
        "Start only when everyone is ready (a play asks them first)", hotkey: "w",
        choice: .startWhenAllReady(true))
    let keep: [Option] =
      control.kept
      ? [Option("Let the room go when everyone has left", hotkey: "k", choice: .keep(false))]
      : relayKeepsRooms
        ? [
          Option(
            "Keep the room for next time (paused, once everyone has left)",
            hotkey: "k", choice: .keep(true))
        ] : []
    return Prompt(
      kind: .roomMenu, title: "Your room",
      message:
        "\(control.locked ? "Locked" : "Open") · \(control.playback == .owner ? "only you control playback" : "everyone controls playback")\(control.startWhenAllReady ? " · starts when all are ready" : "")\(control.kept ? " · kept for next time" : "")",
      options: [lock, playback, ready] + keep + [
        Option("Hand the room to…", hotkey: "h", choice: .handOver),
        Option("Remove someone…", hotkey: "r", choice: .removeSomeone),
        Option("Cancel", hotkey: "x", choice: .cancel),
      ])
  }

  /// The others in the room, to hand it to or to remove.
  public static func pickPerson(handOver: Bool, people: [Participant]) -> Prompt {
    Prompt(
      kind: .pickPerson(handOver: handOver), title: handOver ? "Hand the room to" : "Remove",
      message: people.isEmpty ? "Nobody else is in the room." : "",
      options: people.map { Option($0.name, hotkey: nil, choice: .person($0.id)) }.map {
        var o = $0
        o.hotkey = nil
        return o
      })
  }

  /// Removing someone, asked once more: their place goes, and in a locked room they cannot
  /// come back.
  public static func confirmRemove(_ person: Participant, locked: Bool) -> Prompt {
    let back = locked ? "the room is locked: they cannot come back" : "they can enter again"
    return Prompt(
      kind: .confirmRemove(person.id), title: "Remove",
      message: "Remove \(person.name) from the room? Their place goes; \(back).",
      options: [Option("Yes", choice: .yes), Option("No", choice: .no)], selection: 1)
  }

  /// Handing the room over cannot be taken back by its giver: asked first, No selected.
  public static func confirmHandOver(_ person: Participant) -> Prompt {
    Prompt(
      kind: .confirmHandOver(person.id), title: "Hand over",
      message:
        "Hand the room to \(person.name)? They will lock it, choose who controls playback and remove people; you no longer will.",
      options: [Option("Yes", choice: .yes), Option("No", choice: .no)], selection: 1)
  }

  /// The reasons `s` offers, in the order people reach for them.
  public static let stepAwayReasons: [(label: String, reason: SuspensionReason)] = [
    ("A call or an interruption", .interrupted),
    ("Changing the time (to bring everyone there)", .changingTime),
    ("My player needs me", .userActionRequired),
    ("My player isn't working", .playerUnavailable),
  ]

  /// Why step away; each reason says whether the group waits for it (the relay's waiting
  /// policy, `waits`).
  public static func stepAway(waits: Set<SuspensionReason>) -> Prompt {
    var options = stepAwayReasons.map { entry in
      Option(
        entry.label, hotkey: nil, choice: .suspend(entry.reason),
        detail: waits.contains(entry.reason) ? "the group waits" : "the group plays on")
    }
    options.append(
      Option(
        "Other: type a reason", hotkey: nil, choice: .otherReason,
        detail: "the group plays on"))
    // Digits choose here: two reasons begin with "My", so first letters would not.
    for index in options.indices { options[index].hotkey = nil }
    return Prompt(
      kind: .stepAway, title: "Step away",
      message: "Why? The others see it. Come back with s.", options: options)
  }

  /// A reason of one's own: what the others read ("bob stepped away — feeding the cat").
  public static func stepAwayReason() -> Prompt {
    Prompt(
      kind: .stepAwayReason, title: "Step away because", message: "", options: [],
      inputLimit: SuspensionText.maximumLength)
  }

  /// A reaction at this moment: the quick picks by digit, or words of one's own.
  public static func react() -> Prompt {
    // Numbered as the digits that choose them: an emoji is no letter to press.
    var options = Reaction.quickPicks.enumerated().map { index, pick in
      Option("\(index + 1)  \(pick)", choice: .reaction(pick))
    }
    options.append(
      Option("\(options.count + 1)  A few words of your own", choice: .otherReaction))
    for index in options.indices { options[index].hotkey = nil }
    return Prompt(
      kind: .react, title: "React",
      message: "Everyone sees it, with the moment of the film.", options: options)
  }

  /// A reaction of one's own: at most ``Reaction/maximumWords`` words.
  public static func reactText(draft: String = "") -> Prompt {
    Prompt(
      kind: .reactText, title: "React with (a few words)", message: "", options: [],
      input: draft, inputLimit: Reaction.maximumBytes)
  }

  /// The chat line; `names` are completed after `@` with Tab.
  public static func chat(draft: String = "", names: [String] = []) -> Prompt {
    var prompt = Prompt(kind: .chat, title: "Say", message: "", options: [], input: draft)
    prompt.completions = names
    return prompt
  }

  /// `@par` (or a name after `/tell`) and Tab: `head` (the line up to the cursor) with the
  /// name that starts so (ignoring case), or as much as all such names share; a whole name
  /// gets a space after it. Unchanged when nothing completes, or the result would be
  /// longer than `room`.
  func completeName(_ head: String, room: Int) -> String {
    // The names of a `/tell`, with or without `@`.
    if let completed = TellLine.complete(head, names: completions) {
      return completed.count <= room ? completed : head
    }
    guard let at = head.lastIndex(of: "@"),
      !head[head.index(after: at)...].contains(" ")
    else { return head }
    let typed = String(head[head.index(after: at)...]).lowercased()
    let matches = completions.filter { $0.lowercased().hasPrefix(typed) }
    guard let first = matches.first else { return head }
    var shared = first
    for other in matches.dropFirst() {
      while !other.lowercased().hasPrefix(shared.lowercased()) { shared.removeLast() }
    }
    let completed = String(head[...at]) + shared + (matches.count == 1 ? " " : "")
    return completed.count <= room ? completed : head
  }
}
