import FrontSessions
import Media
import ParticipantRuntime
import Participation
import PlaybackCoordination
import TerminalFront

/// Drives a ``FrontSession`` as the runner would, without a terminal, a network or a clock:
/// inputs go in one at a time at ``moment``; the effects come back and the screen can be
/// read as text.
struct Driver {
  var session: FrontSession
  var moment = Fixtures.moment()
  /// Every action handed to the worker so far, in order.
  private(set) var requests: [ParticipantAction] = []
  /// Whether the worker was told to stop the client (after the actions before it).
  private(set) var clientStopped = false
  /// Every command for the local player so far, in order.
  private(set) var playerCommands: [PlayerCommand] = []

  init(
    invite: String? = nil, hostsRoom: Bool = false, reconnectGiveUpAfter: Double? = nil,
    warnings: [String] = [], lastTime: String? = nil
  ) {
    session = FrontSession(
      roomName: "lobby", catalog: [Fixtures.series], invite: invite, hostsRoom: hostsRoom,
      reconnectGiveUpAfter: reconnectGiveUpAfter, warnings: warnings, lastTime: lastTime)
  }

  /// ann has entered the room where bob is; nothing is watched yet.
  static func inLobby(hostsRoom: Bool = false) -> Driver {
    var d = Driver(hostsRoom: hostsRoom)
    d.send(.started)
    d.send(.client(.welcomed(participant: Fixtures.ann, resumed: false, relayEpoch: "e1")))
    d.send(.client(.connection(.connected)))
    d.send(.client(.state(Fixtures.lobby(), events: [])))
    d.send(.client(.session(.none)))
    return d
  }

  /// ann and bob are watching S1E2 together, at 2:40, and ann's player shows it.
  static func watching(hostsRoom: Bool = false) -> Driver {
    var d = inLobby(hostsRoom: hostsRoom)
    d.moment.player = Fixtures.player()
    d.send(.client(.state(Fixtures.playing(), events: [])))
    d.send(.client(.session(.joined(sessionID: 1))))
    return d
  }

  @discardableResult
  mutating func send(_ input: FrontSession.Input) -> [FrontSession.Effect] {
    let effects = session.handle(input, at: moment)
    for effect in effects {
      switch effect {
      case .act(let action): requests.append(action)
      case .stopClient: clientStopped = true
      case .player(let command): playerCommands.append(command)
      default: break
      }
    }
    return effects
  }

  /// Presses keys one after the other; returns the effects of all of them.
  @discardableResult
  mutating func press(_ keys: Key...) -> [FrontSession.Effect] {
    keys.flatMap { send(.key($0)) }
  }

  @discardableResult
  mutating func type(_ text: String) -> [FrontSession.Effect] {
    text.flatMap { send(.key(.character($0))) }
  }

  /// Forgets the requests and player commands seen so far.
  mutating func clearRequests() {
    requests = []
    playerCommands = []
  }

  func screen(rows: Int = 35, cols: Int = 120) -> String {
    ScreenRenderer.render(session.model, rows: rows, cols: cols).text
  }
}
