import Foundation
import HeadlessFront
import Media
import ParticipantRuntime
import Participation
import PlaybackCoordination

/// A parsed demo script: who takes part, how the relay is set up, and what happens when.
///
/// ```
/// # comments start with #
/// speed 1                                   (optional; `cowatch demo --speed` overrides it)
/// relay rebuffer-timeout=5s suspension-timeout=5s
/// participant ann autoadvance=on drift=+200ppm latency=50ms
/// participant bob stall-chance=0.02 stall-length=1s-3s arrives-at=0:10
/// at 0:00 ann start harbour/s1e1
/// at 0:12 bob join
/// at 0:20 bob pause
/// at 0:21 expect ann,bob state paused position 0:20±0.5 item harbour/s1e1
/// at 0:30 bob stall 4s
/// at 0:31 expect all waiting-for bob
/// ```
///
/// Times are item-clock-like (`m:ss`, `h:mm:ss` or seconds, fractions allowed) measured on
/// the run's clock from its start, so they scale with the speed. See `docs/DEMO.md`.
public struct DemoScript: Hashable, Sendable {
  /// The file it came from, for messages.
  public var fileName: String
  /// The speed the script asks for (`speed X`), if any.
  public var speed: Double?
  public var relay: RelaySettings
  /// In declaration order.
  public var participants: [ParticipantDeclaration]
  /// In time order (arrivals of participants included).
  public var steps: [ScriptStep]

  public init(
    fileName: String = "<script>", speed: Double? = nil, relay: RelaySettings = .init(),
    participants: [ParticipantDeclaration] = [], steps: [ScriptStep] = []
  ) {
    self.fileName = fileName
    self.speed = speed
    self.relay = relay
    self.participants = participants
    self.steps = steps
  }

  public func participant(_ name: String) -> ParticipantDeclaration? {
    participants.first { $0.name == name }
  }

  /// When the last step happens, script seconds.
  public var length: Double { steps.last?.time ?? 0 }

  /// How many `expect` lines the script has.
  public var expectationCount: Int {
    steps.reduce(0) { n, step in if case .expect = step.kind { n + 1 } else { n } }
  }

  /// Parses a script; `catalog`, when given, is used to check the items it names.
  public static func parse(_ text: String, fileName: String = "<script>", catalog: Catalog? = nil)
    throws(ScriptError) -> DemoScript
  {
    var parser = ScriptParser(fileName: fileName, catalog: catalog)
    return try parser.parse(text)
  }

  /// Reads and parses the script at `path`.
  public static func load(from path: String, catalog: Catalog? = nil) throws(ScriptError)
    -> DemoScript
  {
    func unreadable(_ reason: String) -> ScriptError {
      ScriptError(fileName: path, line: 0, problem: .unreadable(reason: reason))
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw unreadable("no such file")
    }
    guard !isDirectory.boolValue else { throw unreadable("it is a directory") }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw unreadable("permission denied, or not a regular file")
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw unreadable("it is not UTF-8 text")
    }
    return try parse(text, fileName: path, catalog: catalog)
  }
}

/// The relay's waiting policy for a run (`relay KEY=VALUE ...`); nil keeps the default.
public struct RelaySettings: Hashable, Sendable {
  /// How long the group waits for a re-buffering (stalled readiness) participant, seconds.
  public var rebufferTimeout: Double?
  /// How long the group waits for a participant suspended for a waiting reason — a stall
  /// reported as a `stallRecovery` suspension among them — seconds.
  public var suspensionTimeout: Double?
  /// How long the group waits for a first load, seconds.
  public var firstLoadTimeout: Double?

  public init(
    rebufferTimeout: Double? = nil, suspensionTimeout: Double? = nil,
    firstLoadTimeout: Double? = nil
  ) {
    self.rebufferTimeout = rebufferTimeout
    self.suspensionTimeout = suspensionTimeout
    self.firstLoadTimeout = firstLoadTimeout
  }

  /// The engine configuration with these settings applied.
  public func applied(to base: EngineConfiguration = .init()) -> EngineConfiguration {
    var c = base
    if let rebufferTimeout { c.rebufferTimeout = rebufferTimeout }
    if let suspensionTimeout { c.suspensionWaitTimeout = suspensionTimeout }
    if let firstLoadTimeout { c.firstLoadTimeout = firstLoadTimeout }
    return c
  }
}

/// One `participant` line: a terminal the run connects, with its simulated player.
public struct ParticipantDeclaration: Hashable, Sendable {
  public var name: String
  /// The line it was declared on.
  public var line: Int
  public var autoAdvance: Bool
  /// When it connects and enters the room, script seconds.
  public var arrivesAt: Double
  public var player: SimulatedPlayerConfiguration

  public init(
    name: String, line: Int = 0, autoAdvance: Bool = false, arrivesAt: Double = 0,
    player: SimulatedPlayerConfiguration = Self.defaultPlayer(seed: 1)
  ) {
    self.name = name
    self.line = line
    self.autoAdvance = autoAdvance
    self.arrivesAt = arrivesAt
    self.player = player
  }

  /// A modest player: no drift, 300 ms to load, 50 ms to start or seek, no stalls.
  public static func defaultPlayer(seed: UInt64) -> SimulatedPlayerConfiguration {
    SimulatedPlayerConfiguration(
      driftPPM: 0, loadLatency: 0.3...0.3, playLatency: 0.05...0.05, seekLatency: 0.05...0.05,
      stallsPerSecond: 0, stallDuration: 1...3, seed: seed)
  }

  /// A seed from the name (FNV-1a), so that a name plays the same way every run.
  public static func seed(for name: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in name.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    return hash
  }
}

/// One timed thing to do.
public struct ScriptStep: Hashable, Sendable {
  /// Script seconds from the start of the run.
  public var time: Double
  /// The script line (0 for steps implied by declarations, like arrivals).
  public var line: Int
  /// The line as written, for the transcript.
  public var text: String
  public var kind: Kind

  public enum Kind: Hashable, Sendable {
    /// The participant connects and enters the room (from `arrives-at`).
    case arrive(participant: String)
    /// The participant does what headless mode would do with the same words.
    case act(participant: String, action: ParticipantAction)
    /// The participant's player stalls for this many seconds (`at 0:30 dan stall 4s`).
    case stall(participant: String, duration: Double)
    case expect(Expectation)
  }

  public init(time: Double, line: Int, text: String, kind: Kind) {
    self.time = time
    self.line = line
    self.text = text
    self.kind = kind
  }
}
