import PlaybackCoordination
import WireProtocol

/// What a relay keeps of one room for the relays that may carry it on after it: one value
/// beside the room's engine and members, with a part for each concern — the successors it
/// feeds (``RelayCore`` `+Succession`), those it lost and asks after (`+Replaced`), and the
/// members it lost touch with, which may cut the room off (`+CutOff`).
struct CarryingState: Sendable {
  /// The successors fed with replicas, and what each member's feed has carried so far.
  struct Feed: Sendable {
    private(set) var members: Set<ParticipantID> = []
    /// For each member, how many of their pending messages the successors were fed.
    private var messages: [ParticipantID: UInt64] = [:]
    /// For each member, the last answer the successors were fed.
    private var answers: [ParticipantID: UInt64] = [:]

    /// Those of `successors` not fed so far: each is to be given the whole room.
    func newcomers(among successors: Set<ParticipantID>) -> Set<ParticipantID> {
      successors.subtracting(members)
    }

    /// The successors to feed from now on.
    mutating func choose(_ successors: Set<ParticipantID>) { members = successors }

    /// A successor fed the whole room too often: not fed for a while.
    mutating func passOver(_ successor: ParticipantID) { members.remove(successor) }

    /// Where each member's feed starts: what every fed successor has of them already.
    mutating func startAt(messages: UInt64, answer: UInt64, for member: ParticipantID) {
      self.messages[member] = messages
      answers[member] = answer
    }

    /// What of `member` the successors have not been fed: messages after the count,
    /// answers after the id.
    func pending(of member: ParticipantID) -> (messagesAfter: UInt64, answersAfter: UInt64) {
      (messages[member] ?? 0, answers[member] ?? 0)
    }

    /// The successors were fed `member`'s messages up to `messages` and answers up to
    /// `answer` (never back: an answer fed stays fed).
    mutating func fed(_ member: ParticipantID, messages: UInt64, answer: UInt64?) {
      self.messages[member] = messages
      answers[member] = max(answers[member] ?? 0, answer ?? 0)
    }

    /// The member left the room: nothing more of theirs to feed.
    mutating func forget(_ member: ParticipantID) {
      messages[member] = nil
      answers[member] = nil
    }
  }

  /// Successors whose connections went without a goodbye, with where their relays listen,
  /// and when to ask those relays next whether one runs the room now.
  struct Lost: Sendable {
    private(set) var endpoints: [ParticipantID: RelayEndpoint] = [:]
    private(set) var nextLocate: GroupInstant?

    /// A successor's connection went without a goodbye: where its relay listens. Asked at
    /// once (the next sweep): a relay waking from a long stop runs the room beside the one
    /// that replaced it until it hears back, and that is a time to keep short.
    mutating func lose(_ participant: ParticipantID, at endpoint: RelayEndpoint, now: GroupInstant)
    {
      endpoints[participant] = endpoint
      if nextLocate == nil { nextLocate = now }
    }

    /// The member is back, or gone for good: its relay need not be asked any more.
    /// Returns whether it was lost.
    mutating func found(_ participant: ParticipantID) -> Bool {
      guard endpoints.removeValue(forKey: participant) != nil else { return false }
      if endpoints.isEmpty { nextLocate = nil }
      return true
    }

    /// Whether the lost relays are to be asked now; if so, the next round is due
    /// `interval` seconds on.
    mutating func locateDue(at now: GroupInstant, every interval: Double) -> Bool {
      guard let due = nextLocate, due <= now else { return false }
      nextLocate = now.advanced(bySeconds: interval)
      return true
    }
  }

  /// Members whose connections went without a goodbye and who may be in the room
  /// elsewhere (see `RelayCore.settleCutOff(_:at:)`), and whether the room refuses changes
  /// because enough of them are gone that they may have elected a successor and gone on.
  struct CutOff: Sendable {
    private(set) var unaccounted: Set<ParticipantID> = []
    private(set) var isCutOff = false

    /// A member's connection went without a goodbye: they may be in the room elsewhere.
    mutating func missing(_ participant: ParticipantID) { unaccounted.insert(participant) }

    /// The member is back, or gone for good.
    mutating func accountedFor(_ participant: ParticipantID) { unaccounted.remove(participant) }

    /// Decides it again from how many of the room are still connected here (its host left
    /// out), and whether any successor's relay was lost; returns whether that changed it.
    mutating func settle(connected: Int, lostAny: Bool) -> Bool {
      let now =
        lostAny && RelayCore.rivalPossible(connected: connected, unaccounted: unaccounted.count)
      guard now != isCutOff else { return false }
      isCutOff = now
      return true
    }
  }

  /// The member whose machine runs this relay (its `carry` offer said so).
  var host: ParticipantID?
  var feed = Feed()
  var lost = Lost()
  var cutOff = CutOff()
}
