/// What asking the relay at an address whether it runs a room (`locate`) came to. A relay
/// that lost members without a word tells these apart: a relay that runs the room there
/// is where its people must go; nothing listening there means that member's process is
/// gone (it can neither carry the room nor vote for one that does); silence says nothing
/// (a machine asleep, or across a cut network).
public enum LocateAnswer: Hashable, Sendable {
  /// It runs the room now, at `term` (0 when it did not say).
  case here(term: UInt64)
  /// It answered that it does not.
  case elsewhere
  /// Nothing listens there: the connection was refused.
  case nothingListening
  /// No answer in time (unreachable, silent, or an answer that made no sense).
  case noAnswer

  /// Whether the relay there answered at all (it can be reached from here).
  public var answered: Bool {
    switch self {
    case .here, .elsewhere: true
    case .nothingListening, .noAnswer: false
    }
  }
}
