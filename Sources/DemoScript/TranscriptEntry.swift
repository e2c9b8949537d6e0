/// One line of a run's transcript: what happened, when (script time), from whose view.
/// Plain mode prints ``formatted``; a curses view can filter by ``kind``.
public struct TranscriptEntry: Hashable, Sendable {
  public enum Kind: Hashable, Sendable {
    /// About the run itself: the relay, arrivals, the summary.
    case info
    /// A participant does something (`bob: pause`), or the script stalls its player.
    case action(participant: String)
    /// A change of the group as a sentence, shown once, from the first participant to see it.
    case notice(observer: String)
    /// A question for one participant (e.g. confirm a switch).
    case prompt(participant: String)
    /// A message one participant received.
    case chat(participant: String)
    /// Something went wrong for one participant (a refused action, a lost connection).
    case error(participant: String)
    /// An `expect` line held / did not.
    case passed(line: Int)
    case failed(line: Int)
  }

  /// Script seconds since the start of the run.
  public var time: Double
  public var kind: Kind
  /// The line without its timestamp.
  public var text: String

  public init(time: Double, kind: Kind, text: String) {
    self.time = time
    self.kind = kind
    self.text = text
  }

  /// `[m:ss] text`.
  public var formatted: String { "\(ScriptTime.stamp(time)) \(text)" }

  /// The participant this entry is about, if it is about one.
  public var participant: String? {
    switch kind {
    case .action(let p), .prompt(let p), .chat(let p), .error(let p): p
    case .notice(let observer): observer
    case .info, .passed, .failed: nil
    }
  }
}
