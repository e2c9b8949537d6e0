import Clocks
import Lending
import LendingEndpoint
import Logging
import PlaybackCoordination
import Synchronization

/// A member's lending and borrowing of the group's items: with a copy of its own it may
/// lend it (``LenderEndpoint``, grants to members who ask, taken back when they leave or
/// the group moves on); without one, it asks the room who lends, opens the lent copy (over
/// TLS pinned to the lender's certificate) and serves it to its own player on loopback
/// (``BorrowingPlayer`` holds the player back meanwhile). The decisions are the pure
/// books' (``LendingBook``, ``BorrowingBook``); this performs them.
public final class ItemLending: Sendable {
  /// Where this member lends from: its endpoint, and the address borrowers reach it at.
  public struct Lender: Sendable {
    public var endpoint: LenderEndpoint
    public var host: String
    public var fingerprint: String
    public init(endpoint: LenderEndpoint, host: String, fingerprint: String) {
      self.endpoint = endpoint
      self.host = host
      self.fingerprint = fingerprint
    }
  }

  /// A borrowed item as the player reads it: its loopback endpoint, serving a copy that
  /// outlives its lender, and the lender's copy read now (nil while another is sought).
  private struct Open: Sendable {
    var endpoint: LoopbackItemEndpoint
    var copy: FailoverItemSource
    var remote: RemoteItemSource?
    /// The lent subtitle files, written where the player reads them (a folder of this
    /// process's own, removed with the copy).
    var subtitles = LentSubtitles()
  }

  private struct State: Sendable {
    var book = BorrowingBook()
    var open: [String: Open] = [:]
    var client: ParticipantClient?
    var timer: Task<Void, Never>?
    /// Subtitle files offered with grants, by item and lender, until opened.
    var subtitleOffers: [String: [String]] = [:]
    var openedObservers: [@Sendable (ItemID, LocalInstant) -> Void] = []
  }

  /// This machine's own files, by the group's item id.
  public let paths: [ItemID: String]
  public let lender: Lender?
  private let state = Mutex(State())
  private let logger: Logger
  /// The relayed path, when the member's relay may carry it (see ``useTunnels(_:)``).
  private let tunnels = Mutex<RelayTunnels?>(nil)

  /// Reads a lender it cannot reach through the room's relay, and answers the relay's calls
  /// as a lender (set before ``attach(_:)``).
  public func useTunnels(_ tunnels: RelayTunnels) { self.tunnels.withLock { $0 = tunnels } }

  public init(
    paths: [ItemID: String], lender: Lender?, logger: Logger = Logger(label: "cowatch.lending")
  ) {
    self.paths = paths
    self.lender = lender
    self.logger = logger
  }

  /// Calls `observer` each time a lent copy opens for the player (the item, and when).
  public func whenOpened(_ observer: @escaping @Sendable (ItemID, LocalInstant) -> Void) {
    state.withLock { $0.openedObservers.append(observer) }
  }

  /// Whether this member lends its copies now; nil when it has none to lend.
  public var lends: Bool? { lender?.endpoint.lends }

  /// Lends from now on, or stops: every grant is taken back (a read under way ends at its
  /// next chunk, and its borrower asks the room again). The grants taken back.
  /// Each borrower is told at once, so that it reads another's copy before the player
  /// needs its next part.
  @discardableResult
  public func setLends(_ on: Bool) -> [LendingBook.Grant] {
    let taken = lender?.endpoint.setLends(on) ?? []
    if let client = state.withLock({ $0.client }), !taken.isEmpty {
      Task(executorPreference: client.clock.taskExecutor) {
        for grant in taken {
          try? await client.send(
            LendAnswer(item: grant.item, refusal: LendingBook.stoppedLending),
            to: .only([ParticipantID(grant.borrower)]))
        }
      }
    }
    return taken
  }

  /// Whether this machine has a copy of `item` of its own.
  public func hasOwn(_ item: ItemID) -> Bool { paths[item] != nil }

  /// The loopback address the player reads a borrowed `item` at, once it is open.
  public func borrowedURL(_ item: ItemID) -> String? {
    state.withLock { s in
      if case .ready(let url, _, _) = s.book.items[item.rawValue] { url } else { nil }
    }
  }

  /// The files the player reads a borrowed `item`'s subtitles from, those the lender lent
  /// with it.
  public func borrowedSubtitles(_ item: ItemID) -> [String] {
    state.withLock { $0.open[item.rawValue]?.subtitles.files ?? [] }
  }

  /// Where borrowing `item` stands (nil: not asked for).
  public func status(_ item: ItemID) -> BorrowingBook.Status? {
    state.withLock { $0.book.items[item.rawValue] }
  }

  /// The group plays `item`, which this machine lacks: the room is asked who lends it.
  public func need(_ item: ItemID) {
    guard let client = state.withLock({ $0.client }) else { return }
    let now = client.clock.nanoseconds()
    perform(state.withLock { $0.book.need(item.rawValue, now: now) }, client: client)
  }

  /// Follows `client`: answers members' requests, hears answers to its own, and takes
  /// grants back (and moves to another lender) as people leave and the group moves on.
  /// Runs until the client stops.
  public func attach(_ client: ParticipantClient) async -> Task<Void, Never> {
    state.withLock { $0.client = client }
    let requests = await client.messages(of: LendRequest.self)
    let answers = await client.messages(of: LendAnswer.self)
    // The client's events have one reader (the front, or headless mode): the room is
    // looked at instead, each second, for who left and what the group moved on to.
    let ended = Ended()
    return Task(executorPreference: client.clock.taskExecutor) {
      await withDiscardingTaskGroup { group in
        group.addTask {
          for await request in requests { await self.answer(request, client: client) }
          // The messages end when the client stops.
          ended.value.store(true, ordering: .relaxed)
        }
        group.addTask {
          for await answer in answers { self.heard(answer, client: client) }
        }
        if let tunnels = self.tunnels.withLock({ $0 }), let lender = self.lender {
          group.addTask { await tunnels.answerCalls(of: client, from: lender.endpoint) }
        }
        group.addTask {
          while !ended.value.load(ordering: .relaxed), !Task.isCancelled {
            let room = await client.groupState
            self.follow(room, client: client)
            await self.announce(room, client: client)
            await client.clock.sleep(seconds: Self.followInterval)
          }
        }
      }
      self.closeAll(client: client)
    }
  }

  /// The kinds of message lending speaks in: its own, not shown as messages.
  public static let messageKinds: Set<MessageKind> = [LendRequest.kind, LendAnswer.kind]

  /// Seconds of the film a borrower's player reads ahead of where it plays: 30 s of the
  /// evening at the fastest rate a relay allows by default (4×), so that a slow moment of
  /// the lender's link is not a stall at any rate the group plays; not the whole film at
  /// once, which would spend the lender's upload for nothing at every seek.
  public static let readAhead = 120.0

  /// How often the room is looked at for borrowers who left and items the group left.
  public static let followInterval = 1.0

  /// The items the group watches now or next: the session's, the queue's first, and the
  /// series' next (where auto-advance goes).
  public static func watched(in state: GroupState) -> Set<String> {
    guard let session = state.session else {
      return Set(state.queue.prefix(1).map(\.item.rawValue))
    }
    var items: Set<String> = [session.item.id.rawValue]
    if let first = state.queue.first { items.insert(first.item.rawValue) }
    let all = session.series.items
    if let index = all.firstIndex(where: { $0.id == session.item.id }), index + 1 < all.count {
      items.insert(all[index + 1].id.rawValue)
    }
    return items
  }

  // MARK: - Lending

  private func answer(_ request: ReceivedMessage<LendRequest>, client: ParticipantClient) async {
    let item = ItemID(request.message.item)
    // Only those with a copy answer: a room of many does not hear from everyone.
    guard let path = paths[item], let lender else { return }
    let group = await client.groupState
    let source: (any ItemSource)?
    do {
      source = try FileItemSource(path: path)
    } catch {
      logger.notice("cannot lend \(item.rawValue): \(error.description)")
      source = nil
    }
    // The subtitle files mpv would load beside it come too.
    let subtitles = FileItemSource.subtitles(
      besides: path, limit: LendingBook.maximumSubtitles
    ).compactMap { found in
      (try? FileItemSource(path: found.path)).map {
        (name: found.name, source: $0 as any ItemSource)
      }
    }
    let answer = lender.endpoint.request(
      item: item.rawValue, from: request.sender.rawValue, named: request.senderName,
      isMember: group.participant(request.sender) != nil, watched: Self.watched(in: group),
      source: source, name: String(path.split(separator: "/").last ?? "item"),
      subtitles: subtitles)
    let reply: LendAnswer
    switch answer {
    case .granted(let grant):
      let origin = "https://\(Self.host(lender.host)):\(lender.endpoint.port)"
      reply = LendAnswer(
        item: item.rawValue, url: origin + grant.path, fingerprint: lender.fingerprint,
        subtitles: grant.subtitlePaths.isEmpty ? nil : grant.subtitlePaths.map { origin + $0 })
      logger.info("lending \(item.rawValue) to \(request.senderName)")
    case .refused(let why):
      reply = LendAnswer(item: item.rawValue, refusal: why)
    }
    try? await client.send(reply, to: .only([request.sender]))
  }

  /// `https://HOST:PORT` of an address, or nil.
  static func origin(of url: String) -> String? {
    guard url.hasPrefix("https://") else { return nil }
    let rest = url.dropFirst("https://".count)
    guard let slash = rest.firstIndex(of: "/") else { return nil }
    return "https://" + rest[..<slash]
  }

  /// An IPv6 address in a URL is written in brackets.
  static func host(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }

  // MARK: - Borrowing

  private func heard(_ answer: ReceivedMessage<LendAnswer>, client: ParticipantClient) {
    let now = client.clock.nanoseconds()
    if let subtitles = answer.message.subtitles, let url = answer.message.url {
      // Only from where the copy itself is lent: a grant sends nobody anywhere else.
      let origin = Self.origin(of: url)
      let same = subtitles.filter { origin != nil && Self.origin(of: $0) == origin }
      state.withLock { s in
        // A few at a time: the items asked for now, their few files each.
        if s.subtitleOffers.count >= 4 * BorrowingBook.maximumItems { s.subtitleOffers = [:] }
        s.subtitleOffers[Self.offerKey(answer.message.item, answer.sender.rawValue)] = Array(
          same.prefix(LendingBook.maximumSubtitles))
      }
    }
    let effects = state.withLock {
      $0.book.answered(
        item: answer.message.item, by: answer.sender.rawValue, named: answer.senderName,
        url: answer.message.url, fingerprint: answer.message.fingerprint,
        refusal: answer.message.refusal, now: now)
    }
    perform(effects, client: client)
  }

  private func follow(_ group: GroupState, client: ParticipantClient) {
    let members = Set(group.participants.map(\.id.rawValue))
    let watched = Self.watched(in: group)
    if let lender {
      for grant in lender.endpoint.grants where !members.contains(grant.borrower) {
        lender.endpoint.revoke(borrower: grant.borrower)
      }
      lender.endpoint.keep(only: watched)
    }
    let now = client.clock.nanoseconds()
    let effects = state.withLock { s -> [BorrowingBook.Effect] in
      var effects = s.book.keep(only: watched)
      let lenders = Set(
        s.book.items.values.compactMap { status -> String? in
          switch status {
          case .opening(let who, _), .ready(_, let who, _): who
          default: nil
          }
        })
      for gone in lenders.subtracting(members).sorted() { effects += s.book.left(gone, now: now) }
      return effects
    }
    perform(effects, client: client)
  }

  /// Tells the room whose copy this member's player reads for the item the group watches
  /// (none: its own, or nothing), when the room's state says otherwise: the others' wait
  /// for it and their people pane say where it loads from.
  private func announce(_ group: GroupState, client: ParticipantClient) async {
    guard let me = await client.participantID, let mine = group.participant(me) else { return }
    let lender = group.session.flatMap { session -> ParticipantID? in
      switch status(session.item.id) {
      case .opening(let who, _), .ready(_, let who, _): ParticipantID(who)
      default: nil
      }
    }
    guard mine.lender != lender, lender.map({ group.participant($0) != nil }) ?? true else {
      return
    }
    _ = await client.send(.watchFrom(lender))
  }

  private func perform(_ effects: [BorrowingBook.Effect], client: ParticipantClient) {
    for effect in effects {
      switch effect {
      case .ask(let item):
        Task(executorPreference: client.clock.taskExecutor) {
          try? await client.send(LendRequest(item: item))
        }
      case .open(let item, let url, let fingerprint, let lender):
        let offered = state.withLock {
          $0.subtitleOffers.removeValue(forKey: Self.offerKey(item, lender))
        }
        Task(executorPreference: client.clock.taskExecutor) {
          await self.announce(await client.groupState, client: client)
          await self.open(
            item, url: url, fingerprint: fingerprint, lender: lender, subtitles: offered ?? [],
            client: client)
        }
      case .release(let item):
        let remote = state.withLock { s -> RemoteItemSource? in
          defer { s.open[item]?.remote = nil }
          return s.open[item]?.remote
        }
        if let remote, let copy = state.withLock({ $0.open[item]?.copy }) {
          Task(executorPreference: client.clock.taskExecutor) {
            await copy.release()
            await remote.close()
          }
        }
      case .close(let item):
        if let open = state.withLock({ $0.open.removeValue(forKey: item) }) {
          Task(executorPreference: client.clock.taskExecutor) { await Self.shut(open) }
        }
      }
    }
    scheduleTick(client: client)
  }

  static func offerKey(_ item: String, _ lender: String) -> String { item + "\n" + lender }

  /// The lent subtitle files, each read whole (they are small) and written for the
  /// player; one that cannot be read is left out, with a note.
  private func subtitles(
    _ urls: [String], pinned fingerprint: String, lender: String, client: ParticipantClient
  ) async -> LentSubtitles {
    var read: [(name: String, bytes: BytesItemSource)] = []
    for url in urls {
      do {
        let remote = try await reach(url, pinned: fingerprint, lender: lender, client: client)
        do {
          let bytes = try await BytesItemSource.reading(
            remote, limit: FileItemSource.maximumSubtitleBytes)
          await remote.close()
          read.append((String(url.split(separator: "/").last ?? "subtitle.srt"), bytes))
        } catch {
          await remote.close()
          throw error
        }
      } catch {
        logger.notice("a lent subtitle file could not be read: \(error)")
      }
    }
    do {
      return try LentSubtitles.write(read)
    } catch {
      logger.notice("the lent subtitles could not be kept: \(error)")
      return LentSubtitles()
    }
  }

  private func open(
    _ item: String, url: String, fingerprint: String, lender: String,
    subtitles subtitleURLs: [String], client: ParticipantClient
  ) async {
    do {
      let remote = try await reach(url, pinned: fingerprint, lender: lender, client: client)
      // A copy of the same size takes over where the last lender's left off: the player
      // only waited. Another cut gets an endpoint of its own, and the player reopens.
      let kept = state.withLock { $0.open[item] }
      var handedOver = false
      if let kept {
        do {
          try await kept.copy.replace(with: remote)
          handedOver = true
        } catch {
          logger.info("the next copy of \(item) differs (\(error.description)): reopening")
        }
      }
      let open: Open
      if handedOver, let kept {
        open = Open(endpoint: kept.endpoint, copy: kept.copy, remote: remote)
      } else {
        let copy = FailoverItemSource(remote, clock: client.clock) { [weak self] why in
          self?.readFailed(item, because: why, client: client)
        }
        let name = String(url.split(separator: "/").last ?? "item")
        let subtitles = await subtitles(
          subtitleURLs, pinned: fingerprint, lender: lender, client: client)
        open = Open(
          endpoint: try await LoopbackItemEndpoint.start(serving: copy, as: name), copy: copy,
          remote: remote, subtitles: subtitles)
        if let kept { await Self.shut(kept) }
      }
      let (effects, observers) = state.withLock { s in
        s.open[item] = open
        return (s.book.opened(item: item, url: open.endpoint.url), s.openedObservers)
      }
      logger.info("borrowing \(item) from \(url.prefix(40))…")
      perform(effects, client: client)
      await announce(await client.groupState, client: client)
      if !handedOver, borrowedURL(ItemID(item)) != nil {
        for observer in observers { observer(ItemID(item), client.clock.localNow()) }
      }
    } catch {
      let now = client.clock.nanoseconds()
      let why = (error as? ItemSourceError)?.description ?? "\(error)"
      logger.notice("cannot open the lent copy of \(item): \(why)")
      perform(state.withLock { $0.book.failed(item: item, because: why, now: now) }, client: client)
    }
  }

  /// A read of the lent copy failed (its lender left, stopped lending, or its file broke):
  /// another lender is asked, while the player's read waits for its copy.
  private func readFailed(_ item: String, because why: String, client: ParticipantClient) {
    let now = client.clock.nanoseconds()
    logger.notice("the lent copy of \(item) failed: \(why)")
    perform(state.withLock { $0.book.failed(item: item, because: why, now: now) }, client: client)
  }

  private static func shut(_ open: Open) async {
    open.subtitles.remove()
    await open.copy.close()
    await open.endpoint.stop()
    await open.remote?.close()
  }

  /// How long the lender's own address is tried before the relay is asked, seconds.
  static let directConnectTimeout = 2.0

  /// Opens a lent copy at the lender's address, or (when that cannot be connected to and
  /// the relay may carry it) through a tunnel of the room's relay.
  private func reach(_ url: String, pinned: String, lender: String, client: ParticipantClient)
    async throws(ItemSourceError) -> RemoteItemSource
  {
    guard let tunnels = tunnels.withLock({ $0 }) else {
      return try await RemoteItemSource.open(url, pinned: pinned)
    }
    do {
      return try await RemoteItemSource.open(
        url, pinned: pinned, connectTimeout: Self.directConnectTimeout)
    } catch {
      guard error.unreachable else { throw error }
    }
    logger.info("cannot reach the lender at \(url.prefix(40))… directly; asking the relay")
    return try await RemoteItemSource.open(
      url, pinned: pinned, route: tunnels.route(to: ParticipantID(lender), via: client))
  }

  /// One timer at a time, until the book's next deadline (an answer waited for).
  private func scheduleTick(client: ParticipantClient) {
    let clock = client.clock
    state.withLock { s in
      s.timer?.cancel()
      s.timer = nil
      guard let deadline = s.book.nextDeadline else { return }
      s.timer = Task(executorPreference: clock.taskExecutor) {
        await clock.sleep(untilNanoseconds: deadline)
        guard !Task.isCancelled else { return }
        let now = clock.nanoseconds()
        let effects = self.state.withLock { $0.book.tick(now: now) }
        self.perform(effects, client: client)
      }
    }
  }

  private func closeAll(client: ParticipantClient) {
    let open = state.withLock { s -> [Open] in
      s.timer?.cancel()
      s.timer = nil
      defer { s.open = [:] }
      return Array(s.open.values)
    }
    for copy in open {
      Task(executorPreference: client.clock.taskExecutor) { await Self.shut(copy) }
    }
  }
}

/// Whether a client's messages ended (it stopped).
private final class Ended: Sendable {
  let value = Atomic<Bool>(false)
}
