import Narration
import PlaybackCoordination

/// Turns keys into actions, given what the screen shows. Pure: it owns only the front's own
/// state (the prompt stack, the help overlay, which sessions were already offered).
///
/// Use: after every model change call ``prepare(_:)`` (it offers new sessions and puts the
/// prompt and help into the model), render; on every key call ``handle(key:model:)``,
/// perform the actions, then ``prepare(_:)`` and render again.
public struct FrontController: Hashable, Sendable {
  /// Open prompts; the last one is on top and gets the keys.
  public private(set) var prompts: [Prompt] = []
  public private(set) var showsHelp = false
  /// Which page of the help is shown (any number: the renderer takes it modulo the pages
  /// the screen's size gives).
  public private(set) var helpPage = 0
  /// The last session offered with the Join / Not now prompt (not offered twice).
  public private(set) var offeredSession: UInt64?
  /// The last ready check asked about with the Ready / Not yet prompt (not asked twice).
  public private(set) var askedReadyCheck: GroupInstant?
  /// Who asked the last ready question put in front of this person, and when.
  public private(set) var lastReadyPromptBy: ParticipantID?
  public private(set) var lastReadyPromptSince: GroupInstant?
  public var seekStep: Double
  public var bigSeekStep: Double
  /// How much `[` and `]` change the speed.
  public var rateStep: Double
  /// The reason offered first when `s` asks why.
  public var suspensionReason: SuspensionReason
  /// This front's process runs the room's relay (`cowatch host`): quitting ends the room
  /// for everyone else, so it asks first.
  public var hostsRoom: Bool

  public init(
    seekStep: Double = 10, bigSeekStep: Double = 60, rateStep: Double = 0.25,
    suspensionReason: SuspensionReason = .interrupted, hostsRoom: Bool = false
  ) {
    self.hostsRoom = hostsRoom
    self.seekStep = seekStep
    self.bigSeekStep = bigSeekStep
    self.rateStep = rateStep
    self.suspensionReason = suspensionReason
  }

  public var activePrompt: Prompt? { prompts.last }

  /// Who wants everyone to play `link`: who started the session playing it, or queued it.
  static func proposer(of link: String, in model: FrontModel) -> String? {
    if model.session?.item.id.rawValue == link {
      return model.sessionStartedBy ?? model.session?.startedBy
    }
    return model.group.queue.first { $0.item.rawValue == link }?.addedByName
  }

  /// Seconds within which another ready question from the same asker is not put in front
  /// of this person (the people pane still says it waits, and `y` answers): a member who
  /// asks and takes it back over and over cannot keep a prompt over everyone's screen.
  public static let readyPromptSpacing = 30.0

  /// Lines PgUp and PgDn scroll the notices by.
  public static let scrollStep = 5
  /// Seconds `+` and `-` move this person's personal offset by.
  public static let offsetStep = 0.05

  /// Opens a prompt on top of any others (e.g. one the app itself wants to ask).
  public mutating func present(_ prompt: Prompt) {
    prompts.append(prompt)
  }

  public mutating func dismissAllPrompts() {
    prompts.removeAll()
  }

  /// Brings the front's own state up to date with the model (offers a newly started
  /// session, drops prompts that no longer apply) and copies the prompt and help
  /// visibility into the model for rendering.
  public mutating func prepare(_ model: inout FrontModel) {
    let offline = Self.offlineRefusal(model) != nil
    let waitingSession: UInt64? =
      model.membership == .waiting && !offline ? model.session?.id : nil
    prompts.removeAll { prompt in
      // Out of the room for good, only what this person can do alone stays open.
      if offline {
        switch prompt.kind {
        case .episodePicker, .startSession: return false
        default: return true
        }
      }
      switch prompt.kind {
      case .sessionOffered(let id): return id != waitingSession
      // A switch someone else already made (the group is there): confirming it now would
      // only restart the episode for everyone.
      case .confirmSwitch(let item): return !model.isJoined || model.session?.item.id == item
      case .quit: return !model.isJoined
      case .quitUnreachable: return model.connection == .connected
      case .replaceSession: return model.isJoined || model.session == nil
      case .comeBack: return model.localSuspensions.isEmpty
      case .linkConsent(let link): return !model.linkQuestions.contains(link)
      case .readyAsked(let since):
        return model.session?.readyCheck?.since != since || model.isLocallyReady
      case .readyCheckMenu: return model.session?.readyCheck == nil
      default: return false
      }
    }
    // A ready check this person has not answered: asked once, on top of nothing else, and
    // not again and again by the same asker.
    if let check = model.session?.readyCheck, model.isJoined, !model.isLocallyReady,
      check.askedBy != model.localParticipant, askedReadyCheck != check.since, prompts.isEmpty,
      !showsHelp
    {
      askedReadyCheck = check.since
      let soonAfter = lastReadyPromptSince.map {
        check.since.seconds(since: $0) < Self.readyPromptSpacing
      }
      if lastReadyPromptBy != check.askedBy || soonAfter != true {
        lastReadyPromptBy = check.askedBy
        lastReadyPromptSince = check.since
        prompts.append(.readyAsked(check: check, local: model.localParticipant))
      }
    }
    if let session = model.session, let id = waitingSession, offeredSession != id,
      prompts.isEmpty, !showsHelp
    {
      offeredSession = id
      prompts.append(
        .sessionOffered(
          sessionID: id, startedBy: model.sessionStartedBy ?? session.startedBy,
          seriesTitle: session.series.title,
          item: session.item))
    }
    // A link someone else wants to play, asked about once nothing else is open (an
    // answer may wait: the player stays away from the link until then, the group does not).
    if prompts.isEmpty, !showsHelp, let link = model.linkQuestions.first {
      prompts.append(.linkConsent(link: link, from: Self.proposer(of: link, in: model)))
    }
    // The queue shows the room's queue as it is now (edits come back from the relay),
    // keeping the selected entry selected.
    for index in prompts.indices where prompts[index].kind == .queue {
      var selected: UInt64?
      if case .queueEntry(let id) = prompts[index].selectedOption?.choice { selected = id }
      if selected.map({ id in !model.group.queue.contains { $0.id == id } }) ?? false {
        // Removed: the one that took its place.
        let place = min(prompts[index].selection, max(0, model.group.queue.count - 1))
        selected = model.group.queue.indices.contains(place) ? model.group.queue[place].id : nil
      }
      prompts[index] = .queue(model.group.queue, selected: selected)
    }
    // The Come back dialog says where the group is now, not where it was when it opened.
    if let last = prompts.indices.last, case .comeBack(let position) = prompts[last].kind {
      prompts[last].message =
        Prompt.comeBack(
          position: position, groupPosition: model.groupPosition,
          canBringEveryone: prompts[last].options.contains { $0.choice == .bringEveryone }
        ).message
    }
    model.prompt = prompts.last
    model.showsHelp = showsHelp
    model.helpPage = helpPage
  }

  /// What a key asks for. Prompts get keys first, then the help overlay, then the
  /// main-screen bindings.
  public mutating func handle(key: Key, model: FrontModel) -> [FrontAction] {
    switch key {
    case .resize: return [.redraw]
    case .interrupt: return model.isJoined ? [.act(.leave), .quit] : [.quit]
    // Ctrl-C a second time, at the quit question: leave at once, as only me.
    case .control("c")
    where prompts.last.map({ [.quit, .quitUnreachable].contains($0.kind) }) ?? false:
      return model.isJoined ? [.act(.leave), .quit] : [.quit]
    default: break
    }
    if !prompts.isEmpty {
      let outcome = prompts[prompts.count - 1].handle(key)
      if outcome == .pending {
        // Not a character is dropped without a word.
        let open = prompts[prompts.count - 1]
        guard open.inputCut else { return [.redraw] }
        return [
          .localNotice(
            "the line holds at most \(open.inputLimit) characters: the rest was left out"),
          .redraw,
        ]
      }
      let prompt = prompts.removeLast()
      return resolve(prompt, outcome, model: model)
    }
    if showsHelp {
      // A pager: space, page-down or ↓ turn to the next page, page-up or ↑ back, neither
      // past the ends; space on the last page, and any other key, close it.
      let last =
        model.screenSize.map {
          ScreenRenderer.helpPages(rows: $0.rows, cols: $0.cols).pages.count - 1
        }
        ?? Int.max
      switch key {
      case .character(" ") where helpPage >= last:
        showsHelp = false
      case .character(" "), .pageDown, .down:
        helpPage = min(helpPage + 1, last)
      case .pageUp, .up:
        helpPage = max(helpPage - 1, 0)
      default:
        showsHelp = false
      }
      return [.redraw]
    }
    if case .paste = key {
      return [.localNotice("pasted text goes into the chat line: press c first")]
    }
    guard let binding = KeyBinding.binding(for: key) else { return [] }
    if let action = binding.action {
      if let refusal = Self.offlineRefusal(model) { return [.localNotice(refusal)] }
      return [.act(action)]
    }
    return perform(binding.command, model: model)
  }

  private mutating func perform(_ command: FrontCommand, model: FrontModel) -> [FrontAction] {
    // Watching alone ("Only me"), the playback keys drive this person's own player, in the
    // room or not.
    if model.showsLocalPlayback, let alone = Self.alone(command, model: self) { return alone }
    // Out of the room for good: what needs the room says so; help, the notices, one's own
    // player and quitting still work.
    if let refusal = Self.offlineRefusal(model) {
      switch command {
      case .help, .redraw, .restartPlayer, .olderNotices, .newerNotices, .episodes, .invite: break
      case .quit: return [.quit]
      default: return [.localNotice(refusal)]
      }
    }
    if let done = performInRoom(command, model: model) { return done }
    // The rest moves the group: only for a joined participant.
    if let refusal = playbackRefusal(model) { return [.localNotice(refusal)] }
    guard let session = model.session else { return [] }
    return performOnGroup(command, session: session, model: model)
  }

  /// What the front, the room and this person's place in it do; nil for what moves the
  /// group's playback.
  private mutating func performInRoom(_ command: FrontCommand, model: FrontModel)
    -> [FrontAction]?
  {
    switch command {
    case .help:
      showsHelp.toggle()
      helpPage = 0
      return [.redraw]
    case .redraw:
      return [.redraw]
    case .restartPlayer:
      guard model.playerGone else { return [.localNotice("your player is running")] }
      return [.restartPlayer]
    case .olderNotices:
      return [.scrollNotices(Self.scrollStep)]
    case .newerNotices:
      return [.scrollNotices(-Self.scrollStep)]
    case .chat:
      let others = model.group.participants.filter { $0.id != model.localParticipant }
      present(.chat(names: others.map(\.name)))
      return [.redraw]
    case .readyCheck:
      // One's own question open: what to do with it; otherwise ask.
      if let check = model.session?.readyCheck, let me = model.localParticipant,
        me == check.askedBy || me == model.group.control.owner
      {
        let waiting = model.group.notReadyToWatch.map { $0.id == me ? "you" : $0.name }
        present(.readyCheckMenu(waitingFor: waiting))
        return [.redraw]
      }
      return [.act(.readyCheck)]
    case .react:
      present(.react())
      return [.redraw]
    case .quit:
      let inRoom = model.group.participants.filter { $0.id != model.localParticipant }
      // With someone to carry the room on, the host leaves as anyone does.
      if hostsRoom, !inRoom.isEmpty, model.successors.isEmpty {
        present(.leaveHostedRoom(others: inRoom.map(\.name)))
        return [.redraw]
      }
      guard model.isJoined else { return [.quit] }
      if model.connection == .reconnecting {
        present(.quitUnreachable())
        return [.redraw]
      }
      let watching = model.group.joinedParticipants.filter { $0.id != model.localParticipant }
      present(.quit(others: watching.count))
      return [.redraw]
    case .invite:
      guard let invite = model.invite else {
        return [
          .localNotice(
            "no invite here: you joined by address; the host's invite link lets others join")
        ]
      }
      present(.invite(invite))
      return [.redraw]
    case .join:
      if model.membership == .waiting { return [.act(.join)] }
      return [.localNotice(model.isJoined ? "you have already joined" : "nothing to join")]
    case .episodes:
      return openPicker(model: model)
    case .queue:
      present(.queue(model.group.queue))
      return [.redraw]
    case .offsetAhead:
      return [.act(.changeOffset(by: Self.offsetStep))]
    case .offsetBehind:
      return [.act(.changeOffset(by: -Self.offsetStep))]
    case .autoAdvance:
      guard let local = model.local else { return [.localNotice("not in the room yet")] }
      // Under owner-only control going on is the owner's switch: say so to the others.
      if !local.autoAdvance, !model.controlsPlayback {
        let owner = model.group.owner?.name ?? "the room's owner"
        return [
          .act(.autoAdvance(true)),
          .localNotice(
            "while \(owner) controls playback, only \(owner)'s auto-advance goes on to the next episode"
          ),
        ]
      }
      return [.act(.autoAdvance(!local.autoAdvance))]
    case .room:
      let control = model.group.control
      guard let me = model.localParticipant, control.owner == me else {
        let owner = model.group.owner?.name ?? "the room's owner"
        return [
          .localNotice(
            "only \(owner) can lock the room, choose who controls playback, hand it over or remove someone"
          )
        ]
      }
      present(.roomMenu(control: control, relayKeepsRooms: model.relayKeepsRooms))
      return [.redraw]
    default:
      return nil
    }
  }

  /// What moves the group's playback (or, stepped away, this person's own player).
  private mutating func performOnGroup(
    _ command: FrontCommand, session: WatchSession, model: FrontModel
  ) -> [FrontAction] {
    switch command {
    case .suspendResume:
      if model.localSuspensions.isEmpty {
        present(.stepAway(waits: model.waitingReasons))
        return [.redraw]
      }
      present(
        .comeBack(
          position: model.player.position, groupPosition: model.groupPosition,
          canBringEveryone: model.controlsPlayback))
      return [.redraw]
    default:
      break
    }
    let step: Double? =
      switch command {
      case .back10: -seekStep
      case .forward10: seekStep
      case .back60: -bigSeekStep
      case .forward60: bigSeekStep
      default: nil
      }
    if !model.localSuspensions.isEmpty {
      // Stepped away, the player is this person's own: ←/→ ↑/↓ scrub it, to pick a time
      // to bring everyone to when coming back.
      if let step { return [.seekLocally(by: step)] }
      return [.localNotice("you stepped away — press s to come back")]
    }
    // Under owner-only control the others' playback keys are refused here, in words, and
    // not sent for the relay to refuse after the fact.
    if let refusal = model.playbackControlRefusal,
      [.playPause, .back10, .forward10, .back60, .forward60, .slower, .faster, .next].contains(
        command)
    {
      return [.localNotice(refusal)]
    }
    if let step { return [.act(.playback(.seekBy(step)))] }
    switch command {
    case .playPause:
      return [.act(.playback(.togglePlayback))]
    case .slower, .faster:
      // Only a rate already at the end of the range shown is refused here; the client
      // adds the steps up from the rate it last asked for and keeps them in the range.
      let shown = session.intendedRate > 0 ? session.intendedRate : session.playbackRate
      // The relay's range (its engine configuration), the same one headless mode and the
      // relay itself apply.
      let bound = command == .faster ? model.allowedRates.upperBound : model.allowedRates.lowerBound
      if abs(shown - bound) < 0.001 {
        return [.localNotice("speed is already \(RateFormat.text(bound))")]
      }
      return [.act(.playback(.changeRate(by: command == .faster ? rateStep : -rateStep)))]
    case .next:
      // What is up next: the room's queue first, as auto-advance takes it.
      if let entry = model.group.queue.first, let item = entry.info {
        present(.confirmPlayQueued(entry: entry.id, item: item))
        return [.redraw]
      }
      guard let next = session.series.item(after: session.item.id) else {
        return [
          .localNotice(
            "\(EpisodeLabel.describe(session.item)) is the last episode of \(session.series.title)")
        ]
      }
      present(.confirmSwitch(to: next))
      return [.redraw]
    default:
      return []
    }
  }

  /// Why nothing that needs the room can be done, when this front is out of it for good
  /// (removed, the room closed, the relay given up on).
  static func offlineRefusal(_ model: FrontModel) -> String? {
    guard case .disconnected = model.connection else { return nil }
    return "not in the room any more — e plays an episode for you alone, q quits"
  }

  /// Why playback keys do nothing now, if they don't.
  private func playbackRefusal(_ model: FrontModel) -> String? {
    switch model.membership {
    case .joined: return model.session == nil ? "nothing is being watched" : nil
    case .waiting: return "press j to join the watch session first"
    case .noSession, .invalidated: return "nothing is being watched — press e to pick an episode"
    }
  }

  private mutating func openPicker(model: FrontModel) -> [FrontAction] {
    if model.isJoined, let session = model.session {
      // The series being watched first, then everything else this front knows of.
      let others = model.catalog.filter { $0.id != session.series.id }
      present(.episodePicker(series: [session.series] + others, current: session.item.id))
      return [.redraw]
    }
    guard !model.catalog.isEmpty else {
      return [.localNotice("no episodes of your own here — /play LINK in the chat plays a link")]
    }
    present(.episodePicker(series: model.catalog, current: nil))
    return [.redraw]
  }

  /// What a playback key does while watching alone; nil leaves it to the room's keys.
  private static func alone(_ command: FrontCommand, model controller: FrontController)
    -> [FrontAction]?
  {
    switch command {
    case .playPause: [.localPlayPause]
    case .back10: [.seekLocally(by: -controller.seekStep)]
    case .forward10: [.seekLocally(by: controller.seekStep)]
    case .back60: [.seekLocally(by: -controller.bigSeekStep)]
    case .forward60: [.seekLocally(by: controller.bigSeekStep)]
    case .slower: [.localRate(faster: false)]
    case .faster: [.localRate(faster: true)]
    case .next, .suspendResume:
      [.localNotice("you are watching alone — press e to pick another episode")]
    default: nil
    }
  }

  private mutating func resolve(_ prompt: Prompt, _ outcome: Prompt.Outcome, model: FrontModel)
    -> [FrontAction]
  {
    switch (prompt.kind, outcome) {
    case (.sessionOffered, .chosen(.join)): return [.act(.join)]
    case (.sessionOffered, _):
      // Only an answer the group still waits for is news; a late "not now" changes nothing.
      guard let me = model.localParticipant, model.group.session?.invited.contains(me) == true
      else { return [] }
      return [.act(.decline)]
    case (.linkConsent(let link), .chosen(.link(let answer))): return [.answerLink(link, answer)]
    case (.lastTime, .chosen(.yes)): return [.act(.continueLastTime)]
    // No: a fresh night; the memory stays until this night writes its own.
    case (.lastTime, _): return []
    case (.question, .chosen(.yes)): return [.act(.confirm)]
    case (.question, _): return [.act(.cancel)]
    // Esc is not this one: asked again, it would come straight back.
    case (.linkConsent(let link), _): return [.answerLink(link, .notThisOne)]
    case (.startSession(let item), .chosen(.watchTogether)): return [.act(.start(item))]
    case (.startSession(let item), .chosen(.onlyMe)): return [.watchAlone(item)]
    // Into their session first, then everyone (them included) to the new episode.
    case (.replaceSession(let item), .chosen(.switchEveryone)):
      return [.act(.join), .act(.switchTo(item, confirmed: true))]
    case (.replaceSession, .chosen(.join)): return [.act(.join)]
    case (.replaceSession(let item), .chosen(.onlyMe)): return [.watchAlone(item)]
    case (.confirmSwitch(let item), .chosen(.yes)): return [.act(.switchTo(item, confirmed: true))]
    case (.quit, .chosen(.endForEveryone)): return [.act(.end), .quit]
    case (.quit, .chosen(.leaveOnlyMe)): return [.act(.leave), .quit]
    case (.quitUnreachable, .chosen(.leaveOnlyMe)): return [.quit]
    // The room ends with the relay: end the session first, so that the others read why.
    case (.leaveHostedRoom, .chosen(.yes)):
      return model.isJoined ? [.act(.end), .quit] : [.quit]
    case (.invite(let text), .chosen(.copy)): return [.copyToClipboard(text)]
    case (.comeBack, .chosen(.catchUp)): return [.act(.resume)]
    case (.comeBack(let position), .chosen(.bringEveryone)): return [.act(.resumeAt(position))]
    case (.chat, .submitted(let text)):
      return chatLine(text, from: prompt, model: model)
    case (.episodePicker, .chosen(.item(let id))):
      return picked(id, model: model)
    case (.episodePicker, .acted(.queue, .item(let id)?)):
      // The list stays open: several episodes are queued one after another.
      present(prompt)
      if let refusal = model.playbackControlRefusal { return [.localNotice(refusal)] }
      let series = ([model.session?.series].compactMap { $0 } + model.catalog)
      guard series.contains(where: { $0.item(id) != nil }) else { return [.redraw] }
      return [.act(.queue(.add(id))), .redraw]
    case (.queue, .chosen(.queueEntry(let id))):
      guard let entry = model.group.queue.first(where: { $0.id == id }), let item = entry.info
      else { return [.redraw] }
      if model.session != nil {
        if let refusal = model.playbackControlRefusal { return [.localNotice(refusal)] }
        present(.confirmPlayQueued(entry: id, item: item))
        return [.redraw]
      }
      return [.act(.queue(.play(.entry(id), confirmed: true)))]
    case (.confirmPlayQueued(let entry, _), .chosen(.yes)):
      return [.act(.queue(.play(.entry(entry), confirmed: true)))]
    case (.queue, .acted(let action, let choice)):
      return queueAction(action, on: choice, from: prompt, model: model)
    case (.roomMenu, .chosen(.lock(let locked))): return [.act(.lock(locked))]
    case (.roomMenu, .chosen(.startWhenAllReady(let on))): return [.act(.startWhenAllReady(on))]
    case (.roomMenu, .chosen(.keep(let on))): return [.act(.keepRoom(on))]
    case (.readyAsked, .chosen(.ready(let ready))): return [.act(.ready(ready))]
    // Esc: not answered yet; y answers later.
    case (.readyAsked, _): return []
    case (.readyCheckMenu, .chosen(.startAnyway)): return [.act(.startAnyway)]
    case (.readyCheckMenu, .chosen(.takeBack)): return [.act(.cancelReadyCheck)]
    case (.readyCheckMenu, _): return []
    case (.roomMenu, .chosen(.control(let control))):
      return [.act(.control(control))]
    case (.roomMenu, .chosen(.handOver)), (.roomMenu, .chosen(.removeSomeone)):
      let others = model.group.participants.filter { $0.id != model.localParticipant }
      guard !others.isEmpty else { return [.localNotice("nobody else is in the room")] }
      present(.pickPerson(handOver: outcome == .chosen(.handOver), people: others))
      return [.redraw]
    case (.stepAway, .chosen(.suspend(let reason))): return [.act(.suspend(reason))]
    case (.stepAway, .chosen(.otherReason)):
      present(.stepAwayReason())
      return [.redraw]
    case (.react, .chosen(.reaction(let text))): return [.act(.react(text))]
    case (.react, .chosen(.otherReaction)):
      present(.reactText())
      return [.redraw]
    case (.reactText, .submitted(let text)):
      let text = text.split(separator: " ").joined(separator: " ")
      // Said here, and the line stays open to shorten it.
      if let refusal = Reaction.refusal(text) {
        present(.reactText(draft: text))
        return [.localNotice(refusal), .redraw]
      }
      return [.act(.react(text))]
    case (.stepAwayReason, .submitted(let text)):
      let reason = SafeName.reason(text)
      // Enter on nothing but spaces: say so, rather than close the line without a word.
      guard !reason.isEmpty else {
        return [.localNotice("you did not step away: type a reason, or pick one with s")]
      }
      return [.act(.suspend(SuspensionReason(reason)))]
    case (.pickPerson(true), .chosen(.person(let id))):
      guard let person = model.group.participant(id) else { return [.redraw] }
      present(.confirmHandOver(person))
      return [.redraw]
    case (.confirmHandOver(let id), .chosen(.yes)):
      return [.act(.owner(.id(id)))]
    case (.pickPerson(false), .chosen(.person(let id))):
      guard let person = model.group.participant(id) else { return [.redraw] }
      present(.confirmRemove(person, locked: model.group.control.locked))
      return [.redraw]
    case (.confirmRemove(let id), .chosen(.yes)):
      return [.act(.remove(.id(id)))]
    default:
      return [.redraw]
    }
  }

  /// A line typed in the chat: said, told to some, a link for everyone, or, when it cannot
  /// go as typed, kept open with what was typed and why.
  private mutating func chatLine(_ text: String, from prompt: Prompt, model: FrontModel)
    -> [FrontAction]
  {
    let trimmed = text.trimmingSpaces
    guard !trimmed.isEmpty else { return [.redraw] }
    // "/play LINK" and "/queue LINK": a link for everyone.
    for use in [LinkUse.play, .queue] where trimmed.lowercased().hasPrefix("/\(use.rawValue)") {
      let command = "/\(use.rawValue)"
      let rest = trimmed.dropFirst(command.count)
      guard rest.isEmpty || rest.first == " " else { continue }
      let link = String(rest).trimmingSpaces
      if let problem = link.isEmpty ? "say \(command) and a link" : LinkItem.problem(with: link) {
        // The line stays open with what was typed, to fix it.
        present(prompt)
        return [.localNotice("\(command): \(problem)")]
      }
      return [.openLink(link, use)]
    }
    // "//text" sends "/text"; any other "/word" that is not a command stays in the line
    // with what it might have meant: a mistyped "/tel bob …" must not reach everyone.
    if let literal = ChatCommands.literal(trimmed) { return [.act(.say(literal))] }
    if let problem = ChatCommands.unknownCommand(in: trimmed) {
      present(prompt)
      return [.localNotice(problem)]
    }
    let others = model.group.participants.filter { $0.id != model.localParticipant }
    switch TellLine.parse(trimmed, names: others.map(\.name)) {
    case .notATell:
      return [.act(.say(trimmed))]
    case .tell(let names, let message):
      let people = names.compactMap { name in others.first { $0.name == name }?.id }
      return [.act(.tell(.to(people, message)))]
    // A /tell that cannot go: the line stays open with what was typed, to fix it.
    case .usage:
      present(prompt)
      return [.localNotice(TellLine.usageText)]
    case .unknown(let name):
      present(prompt)
      return [.localNotice("nobody called \(name) is in the room")]
    }
  }

  /// A key on the queue's list: the list stays open, the entry chosen moved or removed.
  private mutating func queueAction(
    _ action: Prompt.ListAction, on choice: Prompt.Choice?, from prompt: Prompt,
    model: FrontModel
  ) -> [FrontAction] {
    present(prompt)
    if let refusal = model.playbackControlRefusal { return [.localNotice(refusal)] }
    let queue = model.group.queue
    if action == .clear {
      return queue.isEmpty ? [.redraw] : [.act(.queue(.clear)), .redraw]
    }
    guard case .queueEntry(let id)? = choice,
      let place = queue.firstIndex(where: { $0.id == id })
    else { return [.redraw] }
    switch action {
    case .remove: return [.act(.queue(.remove(.entry(id)))), .redraw]
    case .moveUp where place > 0:
      return [.act(.queue(.move(.entry(id), toPlace: place))), .redraw]
    case .moveDown where place + 1 < queue.count:
      return [.act(.queue(.move(.entry(id), toPlace: place + 2))), .redraw]
    default: return [.redraw]
    }
  }

  private mutating func picked(_ id: ItemID, model: FrontModel) -> [FrontAction] {
    if Self.offlineRefusal(model) != nil {
      return [.watchAlone(id)]
    }
    if model.isJoined, let session = model.session {
      if id == session.item.id {
        return [.localNotice("already watching \(EpisodeLabel.code(id))")]
      }
      if let refusal = model.playbackControlRefusal { return [.localNotice(refusal)] }
      guard
        let item = session.series.item(id)
          ?? model.catalog.lazy.compactMap({ $0.item(id) }).first
      else { return [.redraw] }
      present(.confirmSwitch(to: item))
      return [.redraw]
    }
    guard let series = model.catalog.first(where: { $0.item(id) != nil }),
      let item = series.item(id)
    else {
      return [.redraw]
    }
    let others = model.group.participants.filter { $0.id != model.localParticipant }
    // Others watch together already: a session of this person's own would end theirs.
    let watchers = others.filter(\.isJoined).map(\.name)
    if let session = model.session, !watchers.isEmpty {
      if id == session.item.id { return [.act(.join)] }
      present(
        .replaceSession(
          item: item, seriesTitle: series.title, current: session.item, watchers: watchers))
      return [.redraw]
    }
    if others.isEmpty { return [.act(.start(id))] }
    present(.startSession(item: item, seriesTitle: series.title, others: others.map(\.name)))
    return [.redraw]
  }
}

/// A typed reason as the relay takes it: spaces trimmed, what ``DisplayText`` refuses
/// dropped, cut to whole characters within its byte limit.
enum SafeName {
  static func reason(_ text: String) -> String {
    let kept = String(
      String.UnicodeScalarView(text.unicodeScalars.filter { !DisplayText.isUnsafe($0) }))
    var out = ""
    for character in kept.trimmingSpaces {
      guard out.utf8.count + character.utf8.count <= DisplayText.maximumReasonBytes else { break }
      out.append(character)
    }
    return out.trimmingSpaces
  }
}

extension String {
  var trimmingSpaces: String {
    var s = Substring(self)
    while let f = s.first, f.isWhitespace { s = s.dropFirst() }
    while let l = s.last, l.isWhitespace { s = s.dropLast() }
    return String(s)
  }
}
