import PlaybackCoordination
import Testing

@testable import Participation

@Suite("Pending intents: relative requests start from what was asked for")
struct PendingIntentsTests {
  let at = Fixture.at
  let session = Fixture.playingRoom().state.session!

  func seekTarget(_ result: Result<OutboxRequest.Body, ClientError>) -> Double? {
    if case .success(.command(.seek(_, let to))) = result { to } else { nil }
  }

  @Test("two quick seeks by ten seconds add up, and are forgotten once answered")
  func seeksAddUp() {
    var intents = PendingIntents()
    let first = intents.resolve(
      .playback(.seekBy(10)), session: session, current: 30, allowedRates: 0.25...4, at: at(0))
    #expect(seekTarget(first) == 40)
    intents.asked(.seek(item: session.item.id, to: 40), id: 1, in: session, at: at(0))
    let second = intents.resolve(
      .playback(.seekBy(10)), session: session, current: 30, allowedRates: 0.25...4, at: at(0.5))
    #expect(seekTarget(second) == 50.5, "the asked-for spot moves on while the group plays")
    intents.answered(1)
    let third = intents.resolve(
      .playback(.seekBy(10)), session: session, current: 33, allowedRates: 0.25...4, at: at(1))
    #expect(seekTarget(third) == 43, "answered: the player's position counts again")
  }

  @Test("a seek past the end or a speed past the fastest is refused here, saying where it is")
  func unchangedRequests() {
    let intents = PendingIntents()
    let end = session.item.duration
    let pastEnd = intents.resolve(
      .playback(.seekBy(30)), session: session, current: end, allowedRates: 0.25...4, at: at(0))
    #expect(throws: ClientError.self) { try pastEnd.get() }
    if case .failure(let error) = pastEnd {
      #expect(error.description.contains("already at the end"))
    }
    let fastest = intents.resolve(
      .playback(.changeRate(by: 0.25)), session: session, current: 0, allowedRates: 0.25...1,
      at: at(0))
    if case .failure(let error) = fastest {
      #expect(error.description.contains("speed is already"))
    } else {
      Issue.record("a speed past the fastest was sent")
    }
  }

  @Test("play/pause alternates by what was asked for while the answer is on its way")
  func toggleAlternates() {
    var intents = PendingIntents()
    let first = intents.resolve(
      .playback(.togglePlayback), session: session, current: 12, allowedRates: 0.25...4, at: at(0))
    guard case .success(.command(.pause(_, let spot))) = first else {
      Issue.record("a playing group's toggle did not pause: \(first)")
      return
    }
    #expect(spot == 12)
    intents.asked(.pause(item: session.item.id, at: spot), id: 1, in: session, at: at(0))
    let second = intents.resolve(
      .playback(.togglePlayback), session: session, current: 12.1, allowedRates: 0.25...4,
      at: at(0.1))
    guard case .success(.command(.play)) = second else {
      Issue.record("the second press did not play: \(second)")
      return
    }
  }

  @Test("without a session, relative requests fail as not in a session")
  func noSession() {
    let intents = PendingIntents()
    for request in [
      ParticipantRequest.playback(.pause), .playback(.togglePlayback), .playback(.seekBy(5)),
      .playback(.changeRate(by: 0.1)),
    ] {
      let result = intents.resolve(
        request, session: nil, current: nil, allowedRates: 0.25...4, at: at(0))
      if case .failure(.notInSession) = result {
      } else {
        Issue.record("\(request) gave \(result)")
      }
    }
  }
}
