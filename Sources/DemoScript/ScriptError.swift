import HeadlessFront
import ParticipantRuntime
import Participation
import PlaybackCoordination

/// A script that cannot run, with the line to fix. Every line is checked before anything
/// runs.
public struct ScriptError: Error, Hashable, Sendable, CustomStringConvertible {
  public var fileName: String
  /// 1-based; 0 when the problem is the file as a whole.
  public var line: Int
  public var problem: ScriptProblem

  public init(fileName: String, line: Int, problem: ScriptProblem) {
    self.fileName = fileName
    self.line = line
    self.problem = problem
  }

  /// `FILE:LINE: problem`, as compilers write it.
  public var description: String {
    line > 0 ? "\(fileName):\(line): \(problem)" : "\(fileName): \(problem)"
  }
}

/// What is wrong with a line.
public enum ScriptProblem: Error, Hashable, Sendable, CustomStringConvertible {
  case unreadable(reason: String)
  case unknownDirective(String)
  case missingArgument(directive: String, expected: String)
  case malformedTime(String)
  case timeGoesBackwards(time: Double, previous: Double, previousLine: Int)
  case badSpeed(String)
  case badParticipantName(String)
  case duplicateParticipant(String, firstLine: Int)
  case unknownParticipant(String)
  case unknownOption(String, allowed: String)
  case badOptionValue(option: String, value: String, expected: String)
  case duplicateOption(String)
  case badAction(participant: String, ActionParseError)
  case unknownItem(ItemID)
  case beforeArrival(participant: String, arrivesAt: Double)
  case unknownCheck(String)
  case missingCheckArgument(check: String, expected: String)
  case badCheckArgument(check: String, argument: String, expected: String)
  case noChecks
  case togetherNeedsTwo
  case unterminatedQuote

  public var description: String {
    switch self {
    case .unreadable(let reason): "cannot read the script: \(reason)"
    case .unknownDirective(let word):
      "unknown line \"\(word)\" (lines start with speed, relay, participant, at, or # for a comment)"
    case .missingArgument(let directive, let expected): "\"\(directive)\" needs \(expected)"
    case .malformedTime(let text): "malformed time \"\(text)\" (expected m:ss, h:mm:ss or seconds)"
    case .timeGoesBackwards(let time, let previous, let line):
      "time \(ScriptTime.format(time)) is before \(ScriptTime.format(previous)) on line \(line); steps must be in time order"
    case .badSpeed(let text): "bad speed \"\(text)\" (expected a number from 0.1 to 50)"
    case .badParticipantName(let name):
      "bad participant name \"\(name)\" (1–32 letters, digits, '-' or '_'; not all, nobody or none)"
    case .duplicateParticipant(let name, let first):
      "participant \"\(name)\" is already declared on line \(first)"
    case .unknownParticipant(let name): "unknown participant \"\(name)\""
    case .unknownOption(let option, let allowed):
      "unknown option \"\(option)\" (options: \(allowed))"
    case .badOptionValue(let option, let value, let expected):
      "\(option)=\(value): expected \(expected)"
    case .duplicateOption(let option): "option \"\(option)\" is given twice"
    case .badAction(let participant, let error): "\(participant): \(error)"
    case .unknownItem(let item): "no item \(item) in the catalog"
    case .beforeArrival(let participant, let at):
      "\(participant) only arrives at \(ScriptTime.format(at)) (arrives-at); nothing can happen to them before"
    case .unknownCheck(let word):
      "unknown check \"\(word)\" (checks: state, item, position, together, rate, waiting-for, prompt, notice, chat, error, autoadvance; then optionally within DURATION)"
    case .missingCheckArgument(let check, let expected): "\"\(check)\" needs \(expected)"
    case .badCheckArgument(let check, let argument, let expected):
      "\"\(check) \(argument)\": expected \(expected)"
    case .noChecks: "\"expect\" needs at least one check, e.g. expect ann state playing"
    case .togetherNeedsTwo: "\"together\" needs at least two participants (or all)"
    case .unterminatedQuote: "a quoted text is not closed"
    }
  }
}
