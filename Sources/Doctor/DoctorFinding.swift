/// One line of `cowatch doctor`: what was checked, how it stands, and what to do about it.
public struct DoctorFinding: Hashable, Sendable, Codable {
  /// How a check stands. Only a problem makes `cowatch doctor` exit non-zero: something a
  /// watch night needs is missing; a warning is something that may spoil one.
  public enum Status: String, Hashable, Sendable, Codable, Comparable {
    case ok, warning, problem

    private var rank: Int {
      switch self {
      case .ok: 0
      case .warning: 1
      case .problem: 2
      }
    }
    public static func < (a: Status, b: Status) -> Bool { a.rank < b.rank }
  }

  /// A short stable name (`mpv`, `router`), the key of `--json`'s objects.
  public var check: String
  public var status: Status
  /// What was found, in a sentence.
  public var summary: String
  /// What to do about it; nil when nothing need be done.
  public var advice: String?

  public init(check: String, status: Status, summary: String, advice: String? = nil) {
    self.check = check
    self.status = status
    self.summary = summary
    self.advice = advice
  }
}
