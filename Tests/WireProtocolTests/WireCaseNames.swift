import PlaybackCoordination

@testable import WireProtocol

/// The name on the wire of a value's case, as the sources have it: a union's from its table
/// (Sources/WireProtocol/WireNames.swift), a string enum's its raw value. Nothing is spelled
/// here; the goldens (WireGoldens.swift) and docs/PROTOCOL.md are the independent spelling
/// these names are checked against, and ``WireNamesTests`` checks each against its Swift
/// case name, the protocol's rule.
///
/// The counts are the tables' own, so the coverage test asks for a golden sample of every
/// case a table has (and the docs test for its docs/PROTOCOL.md entry); a case missing from
/// a table does not compile (its `wireType` switch is exhaustive).
enum WireCaseNames {
  static func of<Union: WireUnion>(_ value: Union) -> String { value.wireType.rawValue }
  static func of<Value: WireStringEnum>(_ value: Value) -> String { value.rawValue }

  static let commandCount = GroupCommand.WireType.allCases.count
  static let changeKindCount = ChangeKind.WireType.allCases.count
  static let rejectionCount = Rejection.WireType.allCases.count
  static let waitCauseCount = WaitCause.WireType.allCases.count
  static let stepInputCount = StepInput.WireType.allCases.count
  static let recipientsCount = Recipients.WireType.allCases.count
  static let clientMessageCount = ClientMessage.WireType.allCases.count
  static let serverMessageCount = ServerMessage.WireType.allCases.count
  static let readinessCount = Readiness.allCases.count
  static let exitReasonCount = ExitReason.allCases.count
  static let playbackStatusCount = PlaybackStatus.allCases.count
  static let errorCodeCount = ErrorCode.allCases.count
}
