import Participation
import RoomCrypto

/// Entering a room as a person at a terminal does: when the relay wants the room's
/// password, or says the one given is wrong, the person is asked (again), a few times,
/// each answer tried on a fresh connection.
public enum RoomEntrance {
  /// Why the relay wants a password.
  public enum Question: Hashable, Sendable {
    /// The room has one and none was given.
    case required(room: String)
    /// The one given was wrong.
    case wrong(room: String)
  }

  /// What the person answered.
  public enum Answer: Sendable {
    case password(RoomPassword)
    /// They typed nothing: they do not know it.
    case nothing
    /// Nobody can be asked (headless mode, no terminal): the relay's refusal stands.
    case cannotAsk
  }

  /// Why the room could not be entered.
  public enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
    case refused(ClientError)
    case noPasswordTyped(room: String)

    public var description: String {
      switch self {
      case .refused(let error): error.description
      case .noPasswordTyped(let room): "no password typed for room \(room)"
      }
    }
  }

  /// Enters with `password` (if any), asking at most `asks` times for another; returns the
  /// started client. `client` makes a client for a password, `ask` puts the question.
  public static func enter(
    room: String, password: RoomPassword?, asks: Int = 3,
    client makeClient: (RoomPassword?) -> ParticipantClient,
    ask: (Question) async -> Answer
  ) async throws(Failure) -> ParticipantClient {
    var password = password
    var asked = 0
    while true {
      let client = makeClient(password)
      do {
        try await client.start()
        return client
      } catch {
        let question: Question
        switch error {
        case .passwordRequired: question = .required(room: room)
        case .refused(.wrongPassword, _): question = .wrong(room: room)
        default: throw .refused(error)
        }
        asked += 1
        guard asked <= asks else { throw .refused(error) }
        switch await ask(question) {
        case .password(let typed): password = typed
        case .nothing: throw .noPasswordTyped(room: room)
        case .cannotAsk: throw .refused(error)
        }
      }
    }
  }
}
