import Invites
import LinkConsent
import Media
import Narration
import ParticipantRuntime
import Participation
import PlaybackCoordination
import TerminalFront
import WireProtocol

/// The terminal front's session loop as a value: it owns the screen model and the key
/// controller, takes every input in order — what the client reports, keys, clock ticks,
/// the outcomes of requests — and says what to do about it: requests for the client (made
/// in order by one worker), commands for the local player, drawing. It performs nothing
/// itself, so the whole front can be driven and read as text in tests; ``FrontRunner`` is
/// the thin part that performs the effects.
public struct FrontSession: Sendable {
  /// What the loop reacts to.
  public enum Input: Sendable {
    /// The loop begins: the first screen.
    case started
    case client(ClientEvent)
    /// The client's events ended (it stopped or gave up).
    case clientEnded
    case key(Key)
    /// The terminal was restored behind the loop's back (a signal): wind down.
    case keysEnded
    /// The clock moved (countdowns, positions, notices fading).
    case tick
    /// A request failed for a reason other than a refusal (those come as client events).
    case failed(String)
    /// A sentence for this person about a setting of their own (``ActionOutput/note(_:)``).
    case told(String)
    /// The client has stopped after ``Effect/stopClient``.
    case stopped
    /// The player was started again (nil), or could not be (why).
    case playerRestarted(String?)
    /// The host learned more about where the room can be reached (the router forwards its
    /// port, or cannot): a new link, and what to tell the person.
    case inviteChanged(InviteChange)
    /// This person's player read a link (``Effect/readLink(_:_:)``): its item, or why not.
    case linkRead(LinkUse, Result<ItemInfo, LinkReadError>)
    /// News from this person's link gate: the links waiting for their answer, or a problem.
    case links(LinkGate.News)
    /// An action asked a question (``ActionQuestion``): asked here, answered with
    /// `confirm` or `cancel`.
    case asked(ActionQuestion)
  }

  /// What the runner does, in order.
  public enum Effect: Hashable, Sendable {
    /// Hand to the worker, which has the runtime's ``ActionPerformer`` carry the actions
    /// out one after the other, in order (a slow answer from the relay never freezes the
    /// keys or the screen; a burst of keys reaches the relay in the order it was typed).
    /// Leaving and ending are skipped while the relay is not there: on the way out, they
    /// do not wait for it.
    case act(ParticipantAction)
    /// After the actions before it, stop the participant client (leaving the room as the
    /// runner was told to); its end comes back as ``Input/stopped``.
    case stopClient
    /// Drive the local player directly (watching alone, or stepped away from the group).
    case player(PlayerCommand)
    /// Render ``FrontSession/model`` and show it.
    case draw
    /// Redraw the whole terminal on the next show (Ctrl-L).
    case repaint
    /// The loop is over: restore the terminal and return.
    case finish
    /// Start the local player again; report ``Input/playerRestarted(_:)``.
    case restartPlayer
    /// Put the text on the terminal's clipboard (OSC 52).
    case copyToClipboard(String)
    /// Ring the terminal's bell once: a chat line named this person.
    case bell
    /// Read a link's title and duration with the player; report ``Input/linkRead(_:_:)``.
    case readLink(String, LinkUse)
    /// Tell the link gate the person's answer about a link someone else wants to play.
    case answerLink(String, LinkAnswer)
    /// Links others queued: the gate asks about them now, so that the answer is there
    /// when the group gets to them.
    case considerLinks([String])
  }

  /// What the screen shows; render it with `ScreenRenderer.render(model, rows:cols:)`.
  public private(set) var model: FrontModel
  public private(set) var controller = FrontController()
  /// A quit is under way; group requests other than the way out are dropped.
  public private(set) var quitting = false
  /// The item played for this person only ("Only me"), driven here, not by the group.
  private var aloneItem: ItemID?
  /// The speed of the player while watching alone.
  private var localRate: Double = 1
  /// Where the local player was last told to seek: while it is still seeking it shows
  /// where it was, so the next arrow counts from here (a burst adds up).
  private var localSeekTarget: Double?
  /// The relay's epoch from the last welcome; a different one means it restarted.
  private var relayEpoch: String?
  /// Where the last welcome came from (nil: the relay this front started with).
  private var relayAddress: String?
  /// The reason the client gave up, for the disconnected header.
  private var lastError: String?
  /// The link others join with, as given (the successors are added as they are named).
  private var inviteLink: InviteLink?
  /// The successors last named, reachable ones only, which the invite carries.
  private var successorRelays: [RelayEndpoint] = []
  /// Queued links already handed to the gate (``Effect/considerLinks(_:)``).
  private var consideredLinks: Set<String> = []

  /// The command that joins with `link`.
  public static func invite(for link: InviteLink) -> String {
    "cowatch join \(link.text) --name NAME"
  }

  /// The model as last drawn, so that an input that changes nothing draws nothing.
  private var drawn: FrontModel?
  /// Set when an action asks for a redraw even though the model is the same (a resize).
  private var redrawRequested = false

  /// What went wrong before the front started (a video that cannot be played, say): shown
  /// on its first screen, not only in the log.
  private let warnings: [String]
  /// The room's last night as a host is offered it ("last time: … — continue?"), asked on
  /// the first screen.
  private let lastTime: String?
  /// Whether a moment has given the group's time yet (see ``FrontModel/clockKnown(_:)``).
  private var groupClockKnown = false
  /// How long a request waits for the connection before it is dropped (and said so).
  private let resendWindow: Double

  /// `hostsRoom`: this process runs the room's relay (`cowatch host`), so quitting asks
  /// before ending the room for the others. `reconnectGiveUpAfter`: how long the client
  /// tries to reconnect before giving up (said while it tries).
  /// `inviteLink`: the link others join with (the host's, or the one this person joined
  /// with); the invite shown names the room's successors too, as they change.
  public init(
    roomName: String, catalog: [SeriesInfo], invite: String? = nil, inviteLink: InviteLink? = nil,
    hostsRoom: Bool = false, reconnectGiveUpAfter: Double? = nil, warnings: [String] = [],
    resendWindow: Double = 10, lastTime: String? = nil
  ) {
    self.lastTime = lastTime
    self.warnings = warnings
    self.resendWindow = resendWindow
    self.inviteLink = inviteLink
    model = FrontModel(roomName: roomName, catalog: catalog)
    model.invite = inviteLink.map(Self.invite(for:)) ?? invite
    model.reconnectGiveUpAfter = reconnectGiveUpAfter
    controller.hostsRoom = hostsRoom
  }

  /// How often the runner should tick: four times a second while something moves (the
  /// clock on screen, a countdown), once a second otherwise.
  public var tickInterval: Double {
    let moving: Bool
    if model.showsLocalPlayback {
      moving = model.player.activity != .paused
    } else {
      switch model.session?.status {
      case .playing, .waiting: moving = true
      default: moving = false
      }
    }
    return moving ? 0.25 : 1
  }

  /// Takes one input at `moment` and returns what to do, in order.
  public mutating func handle(_ input: Input, at moment: FrontMoment) -> [Effect] {
    if let now = moment.groupTime {
      if groupClockKnown {
        model.now = now
      } else {
        groupClockKnown = true
        model.clockKnown(now)
      }
    }
    model.player = TerminalFront.PlayerView(moment.player, catalog: model.catalog)
    model.messagesSealed = moment.messagesSealed
    if let screen = moment.screen { model.screenSize = screen }
    if let rates = moment.allowedRates { model.allowedRates = rates }
    if let reasons = moment.waitingReasons { model.waitingReasons = reasons }
    if moment.playerGone, !model.playerGone {
      model.post("your player stopped — press r to start it again", kind: .error)
    }
    model.playerGone = moment.playerGone
    var effects: [Effect] = []
    switch input {
    case .started:
      for warning in warnings { model.post(warning, kind: .error) }
      if let invite = model.invite { model.post("Others join with: \(invite)") }
      if let lastTime { controller.present(.lastTime(lastTime)) }
      redrawRequested = true
    case .client(let event):
      if receive(event) { effects.append(.bell) }
      effects += queuedLinksToConsider()
    case .clientEnded:
      if case .disconnected = model.connection {
      } else {
        model.connection = .disconnected(reason: lastError)
      }
    case .key(let key):
      if key == .control("l"), controller.activePrompt == nil { effects.append(.repaint) }
      effects += keyPressed(key, at: moment)
    case .keysEnded:
      if !quitting { effects += perform(.quit, at: moment) }
    case .tick:
      model.pruneNotices()
    case .failed(let text):
      model.post(text, kind: .error)
    case .told(let text):
      model.post(text, kind: .event)
    case .stopped:
      return [.finish]
    case .playerRestarted(let failure):
      if let failure {
        model.post("the player did not start again: \(failure)", kind: .error)
      } else {
        model.playerGone = false
        model.post("your player is back, in step with the group")
      }
    case .linkRead(let use, let result):
      effects += linkRead(use, result)
    case .links(.questions(let links)):
      model.linkQuestions = links
    case .links(.problem(let text)):
      model.post(text, kind: .error)
    case .asked(let question):
      controller.present(.question(question))
    case .inviteChanged(let change):
      if let link = change.link {
        inviteLink = link
        showInvite()
      }
      model.post(change.note, kind: change.warning ? .error : .event)
      if change.link != nil, let invite = model.invite { model.post("Others join with: \(invite)") }
    }
    controller.prepare(&model)
    if redrawRequested || effects.contains(.repaint) || drawn != model {
      redrawRequested = false
      drawn = model
      effects.append(.draw)
    }
    return effects
  }

  // MARK: - Client events

  /// Returns whether the bell rings: a live chat line from someone else names this person.
  @discardableResult
  private mutating func receive(_ event: ClientEvent) -> Bool {
    switch event {
    case .welcomed(let participant, let resumed, let epoch, let relay, let keepsRooms):
      model.relayKeepsRooms = keepsRooms
      // The same relay, but a new member: this person was away longer than their place
      // was kept, and is back as a newcomer (not in the watch session any more).
      if !resumed, relayEpoch == epoch, let before = model.localParticipant, before != participant {
        model.post(
          "you were away too long to keep your place: back in the room as a newcomer — j joins the others if they watch",
          kind: .error)
      }
      model.localParticipant = participant
      // A new epoch is a new relay process: with the room it kept (resumed), or a new one;
      // at another address, the room moved there (a takeover).
      if let relayEpoch, relayEpoch != epoch {
        model.relayRestarted(resumed: resumed, movedTo: relay != relayAddress ? relay : nil)
      }
      if let relay, relay != relayAddress { inviteMoved(to: relay) }
      relayEpoch = epoch
      relayAddress = relay
    case .state(let state, let events):
      model.group = state
      // Every change of an update, not only the last one.
      for change in events {
        model.apply(change)
        // Removed by the owner: that is why the client stops (the relay's farewell, which
        // would say it again, is not shown).
        if case .removed(let who, _) = change.kind, who == model.localParticipant {
          lastError = ChangeNarrator.notice(for: change, in: state, local: who)
        }
      }
    case .connection(let status):
      switch status {
      case .connected: model.connection = .connected
      case .connecting, .reconnecting:
        if model.connection != .reconnecting { model.reconnectingSince = model.now }
        model.connection = .reconnecting
      case .disconnected: model.connection = .disconnected(reason: lastError)
      }
    case .session(let phase):
      switch phase {
      case .none: model.membership = .noSession
      case .waiting: model.membership = .waiting
      case .joined:
        model.membership = .joined
        // The group's player takes over from watching alone.
        if aloneItem != nil {
          aloneItem = nil
          model.watchingAlone = false
        }
      case .invalidated(let reason): model.membership = .invalidated(reason: reason.description)
      }
    case .message(let from, let name, let kind, let body, let to, let earlier):
      guard kind == .chat else { break }
      let me = model.localParticipant.flatMap { model.group.participant($0)?.name }
      let mention = from != model.localParticipant && me.map { Mention.names($0, in: body) } == true
      model.receiveChat(
        from: name, text: body, to: to.map(names(of:)),
        emphasis: earlier ? .earlier : mention ? .mention : .none)
      // Once a line, and never for what was said before this person came.
      return mention && !earlier
    case .reaction(let from, let name, let reaction, let earlier):
      model.receiveReaction(
        from: from == model.localParticipant ? "you" : name, reaction, earlier: earlier)
    case .rejected(let command, let rejection, _):
      // In words, episodes by their labels; nothing for a race the group already settled
      // (another player's request to advance from the same ending came first).
      if let text = RefusalText.describe(
        rejection, of: command, in: model.group, catalog: model.catalog)
      {
        model.post(text, kind: .error)
      }
    case .notice(let notice):
      // Only what went wrong can be why the connection ends, not what is merely so.
      if notice.weight != .info { lastError = notice.description }
      model.post(notice.description, kind: notice.weight == .info ? .event : .error)
    case .succession(let successors):
      model.successors = successors.filter(\.canCarry).map(\.participant)
      // Where the room may go on if its relay goes: a late friend reaches it there too.
      successorRelays = Array(
        successors.filter(\.canCarry).map(\.relay).prefix(InviteLink.maximumAddresses))
      showInvite()
      model.unreachableCarriers = successors.filter { !$0.reachable }.map(\.participant)
      model.passedOverCarriers = successors.filter { $0.reachable && !$0.feedable }
        .map(\.participant)
    }
    return false
  }

  /// The room now runs at `relay`, one of its successors: the invite names it (its
  /// address and certificate) instead of the machine the room left, whose port nobody
  /// answers any more, so that a friend who comes late reaches the room where it is.
  private mutating func inviteMoved(to relay: String) {
    guard let link = inviteLink,
      let carrier = successorRelays.first(where: { $0.address == relay })
    else { return }
    inviteLink = link.moved(to: carrier)
    successorRelays.removeAll { $0.address == relay }
    showInvite()
  }

  /// The invite as given or changed, with the successors named last.
  private mutating func showInvite() {
    guard var link = inviteLink else { return }
    link.successors = successorRelays
    model.invite = Self.invite(for: link)
  }

  /// What is asked for while reconnecting waits in order with everything else, and goes
  /// when the connection is back (or is reported not sent, if that takes too long): said
  /// at once, rather than shown as if it had gone (the client's own word for it comes
  /// when the answer timeout passes: the same words, one notice).
  private mutating func noteWaits() {
    guard model.connection == .reconnecting else { return }
    model.post(ClientError.notYetSent(window: resendWindow).description, kind: .error)
  }

  /// Who one's own chat line is from: "you", but one's name for an action ("/me waves" reads
  /// "* ann waves", not "* you waves").
  private func sender(of text: String) -> String {
    text.hasPrefix("/me ") ? (model.local?.name ?? "you") : "you"
  }

  /// Names for ids, "you" for this person, as notices say them.
  private func names(of people: [ParticipantID]) -> [String] {
    people.map { id in
      id == model.localParticipant ? "you" : (model.group.participant(id)?.name ?? id.rawValue)
    }
  }

  // MARK: - Keys

  private mutating func keyPressed(_ key: Key, at moment: FrontMoment) -> [Effect] {
    controller.handle(key: key, model: model).flatMap { perform($0, at: moment) }
  }

  // MARK: - Actions

  /// Local effects happen here; everything for the group becomes a request, in order.
  private mutating func perform(_ action: FrontAction, at moment: FrontMoment) -> [Effect] {
    switch action {
    case .redraw:
      redrawRequested = true
      return []
    case .localNotice(let text):
      model.post(text, kind: .error)
      return []
    case .scrollNotices(let lines):
      model.scrollNotices(by: lines)
      return []
    case .restartPlayer:
      model.post("starting your player again…")
      return [.restartPlayer]
    case .copyToClipboard(let text):
      // Terminals that allow it (and tmux with set-clipboard on) take it; others ignore it.
      // The terminal never says whether it took it (OSC 52): say how to tell, and the
      // way that always works.
      model.post(
        "invite sent to the clipboard — if pasting gives nothing, your terminal does not let programs copy (in tmux: set -g set-clipboard on); select the whole link instead, every line of it"
      )
      return [.copyToClipboard(text)]
    case .watchAlone(let item):
      return watchAlone(item, at: moment)
    case .openLink(let link, let use):
      model.post("opening \(LinkItem.host(of: link))…")
      return [.readLink(link, use)]
    case .answerLink(let link, let answer):
      model.linkQuestions.removeAll { $0 == link }
      switch answer {
      case .open: model.post("opening the link to \(LinkItem.host(of: link))…")
      case .alwaysForSite:
        model.post(
          "\(TrustedSites.site(of: LinkItem.host(of: link))) is one of your trusted sites now: its links open without asking"
        )
      case .notThisOne:
        model.post(
          "not opening the link to \(LinkItem.host(of: link)): you stay away from it while the group plays it"
        )
      }
      return [.answerLink(link, answer)]
    case .seekLocally(let delta):
      // Stepped away (the coordinator has let go of the player) or watching alone: move it
      // for this person.
      return seekLocally(by: delta, at: moment)
    case .localPlayPause:
      let shown = moment.player
      switch shown.state {
      case .playing, .starting, .loading, .seeking, .stalled:
        return [.player(.pause(at: shown.position))]
      case .ended:
        return [.player(.play(itemTime: 0, startAt: moment.localTime, rate: localRate))]
      case .paused, .idle:
        return [
          .player(.play(itemTime: shown.position, startAt: moment.localTime, rate: localRate))
        ]
      }
    case .localRate(let faster):
      localRate = KeyBinding.rateStep(from: localRate, up: faster)
      model.post("speed \(RateFormat.text(localRate)) (only you)", kind: .event)
      return [.player(.setRate(localRate))]
    case .act(.tell(.to(let people, let message))):
      // For those people only (the controller read the `/tell`).
      model.receiveChat(from: sender(of: message), text: message, to: names(of: people))
      noteWaits()
      return [.act(.tell(.to(people, message)))]
    case .act(.say(let text)):
      // "/me" alone would go out as the text "/me": say what it wants instead.
      if text.trimmingCharacters(in: .whitespaces) == "/me" {
        model.post("say /me and what you do (/me waves)", kind: .error)
        return []
      }
      // The relay does not echo our own messages back.
      model.receiveChat(from: sender(of: text), text: text)
      noteWaits()
      return [.act(.say(text))]
    case .quit:
      guard !quitting else { return [] }
      quitting = true
      model.post("leaving…")
      return [.stopClient]
    case .act(let request):
      if quitting { return [] }
      // An episode the front cannot place is said, not sent.
      switch request {
      case .start(let item), .switchTo(let item, _):
        guard series(containing: item) != nil else { return [] }
      default: break
      }
      if request != .leave, request != .end { noteWaits() }
      return [.act(request)]
    }
  }

  /// Links in the room's queue that others added and the gate has not been told of yet.
  private mutating func queuedLinksToConsider() -> [Effect] {
    let links = model.group.queue.filter {
      LinkItem.isLink($0.item) && $0.addedBy != model.localParticipant
        && !consideredLinks.contains($0.item.rawValue)
    }.map(\.item.rawValue)
    guard !links.isEmpty else { return [] }
    consideredLinks.formUnion(links)
    if consideredLinks.count > 512 { consideredLinks = Set(links) }
    return [.considerLinks(links)]
  }

  /// A link read (or not) by this person's player: queued, started, or a switch for
  /// everyone asked first, as an episode's would be.
  private mutating func linkRead(_ use: LinkUse, _ result: Result<ItemInfo, LinkReadError>)
    -> [Effect]
  {
    let item: ItemInfo
    switch result {
    case .success(let read): item = read
    case .failure(let problem):
      model.post(problem.description, kind: .error)
      return []
    }
    let series = LinkItem.series(for: item)
    model.links.removeAll { $0.items.first?.id == item.id }
    model.links.append(series)
    if model.links.count > 20 { model.links.removeFirst() }
    switch use {
    case .queue:
      return [.act(.queue(.add(item.id)))]
    case .play:
      guard let session = model.session else {
        return [.act(.start(item.id))]
      }
      guard model.isJoined else {
        // A session of this person's own would end the others': they join first.
        model.post(
          "the others are watching \(EpisodeLabel.describe(session.item)): join them (j) first, then /play switches everyone",
          kind: .error)
        return []
      }
      guard session.item.id != item.id else { return [] }
      if let refusal = model.playbackControlRefusal {
        model.post(refusal, kind: .error)
        return []
      }
      controller.present(.confirmSwitch(to: item))
      return []
    }
  }

  /// The series of an item: the session's, else the catalog's (or a link this person
  /// opened); says so when there is none.
  private mutating func series(containing item: ItemID) -> SeriesInfo? {
    if let series = model.session?.series, series.item(item) != nil { return series }
    if let series = (model.catalog + model.links).first(where: { $0.item(item) != nil }) {
      return series
    }
    model.post("no item \(item) in the catalog", kind: .error)
    return nil
  }

  /// Moves the local player by `delta` from where it is, or from where it was last sent
  /// while it is still on its way there.
  private mutating func seekLocally(by delta: Double, at moment: FrontMoment) -> [Effect] {
    let shown = moment.player
    let from = shown.isBusy ? (localSeekTarget ?? shown.position) : shown.position
    let end = shown.duration ?? model.session?.item.duration ?? 0
    let target = min(max(0, from + delta), end)
    localSeekTarget = target
    return [.player(.seek(to: target))]
  }

  /// "Only me": plays the item on this terminal's player without telling the group.
  private mutating func watchAlone(_ item: ItemID, at moment: FrontMoment) -> [Effect] {
    localRate = 1
    aloneItem = item
    model.watchingAlone = true
    model.post("watching \(EpisodeLabel.code(item)) alone — the room does not follow")
    return [
      .player(.load(item: item, at: 0)),
      .player(.play(itemTime: 0, startAt: moment.localTime, rate: 1)),
    ]
  }
}
