/// How a run went.
public struct DemoResult: Hashable, Sendable {
  /// `expect` lines that held.
  public var passed: Int
  /// All `expect` lines of the script.
  public var expectations: Int
  /// The expectation that failed and ended the run, if one did.
  public var failure: ExpectationFailure?
  /// Why the run could not go on (the relay could not start, a participant could not
  /// connect), if that happened.
  public var problem: String?
  /// Actions the relay or the participant refused (shown in the transcript; they do not fail
  /// the run by themselves — `expect NAME error "..."` checks them).
  public var actionErrors: Int
  /// How long the run took, script seconds and real seconds.
  public var scriptSeconds: Double
  public var realSeconds: Double

  public init(
    passed: Int, expectations: Int, failure: ExpectationFailure? = nil, problem: String? = nil,
    actionErrors: Int = 0, scriptSeconds: Double = 0, realSeconds: Double = 0
  ) {
    self.passed = passed
    self.expectations = expectations
    self.failure = failure
    self.problem = problem
    self.actionErrors = actionErrors
    self.scriptSeconds = scriptSeconds
    self.realSeconds = realSeconds
  }

  public var succeeded: Bool { failure == nil && problem == nil }

  /// One line: what held, what failed.
  public var summary: String {
    let timing =
      "in \(ScriptTime.format(scriptSeconds)) script time (\(ScriptTime.seconds((realSeconds * 10).rounded() / 10)) s real)"
    if let problem { return "the demo stopped: \(problem)" }
    if let failure {
      return
        "\(passed) of \(expectations) expectations held, then line \(failure.line) failed \(timing)"
    }
    let errors = actionErrors == 0 ? "" : "; \(actionErrors) action(s) were refused"
    return "all \(expectations) expectations held \(timing)\(errors)"
  }
}

/// An `expect` line that did not hold: the line, what it asked, what was seen.
public struct ExpectationFailure: Hashable, Sendable, CustomStringConvertible {
  public var line: Int
  /// The text after `expect`.
  public var expected: String
  /// One entry per check that failed, e.g. `bob: state is playing, expected paused`.
  public var seen: [String]

  public init(line: Int, expected: String, seen: [String]) {
    self.line = line
    self.expected = expected
    self.seen = seen
  }

  public var description: String {
    "line \(line) failed: expect \(expected) — but \(seen.joined(separator: "; "))"
  }
}
