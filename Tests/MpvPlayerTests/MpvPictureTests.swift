import PlaybackCoordination
import Testing

@testable import MpvPlayer

@Suite("mpv's picture model and timing estimates")
struct MpvPictureTests {
  func t(_ seconds: Double) -> LocalInstant { LocalInstant(seconds: 100 + seconds) }

  @Test("the picture moves at its speed, and follows a speed change only after the delay")
  func speedChangeInFlight() {
    var picture = MpvPicture()
    picture.start(at: 10, from: t(0), rate: 1)
    #expect(abs(picture.projected(at: t(2), moving: true) - 12) < 1e-9)
    #expect(picture.projected(at: t(2), moving: false) == 10, "a stalled picture stands still")
    picture.speedChanged(to: 2, at: t(2), delay: 0.4, moving: true)
    #expect(picture.isChangingSpeed(at: t(2.1)))
    #expect(abs(picture.projected(at: t(2.4), moving: true) - 12.4) < 1e-9, "old speed until then")
    #expect(abs(picture.projected(at: t(3.4), moving: true) - 14.4) < 1e-9, "new speed after")
    // mpv's audio clock counts the change at once: ahead of the picture by the debt.
    #expect(abs(picture.inFlightDebt(at: t(2.1)) - 0.3) < 1e-9)
    picture.settle(at: t(3), moving: true)
    #expect(!picture.isChangingSpeed(at: t(3)))
    #expect(abs(picture.position - 13.6) < 1e-9)
  }

  @Test("a reading during a speed change says how far off the assumed delay was, once")
  func speedDelayError() throws {
    var picture = MpvPicture()
    picture.start(at: 0, from: t(0), rate: 1)
    picture.speedChanged(to: 1.5, at: t(1), delay: 0.4, moving: true)
    // Had the picture followed only after 0.6 s, mpv's audio clock would read this then.
    let truth = 1.2 + 0.5 * (1.2 - 1.6)
    let first = picture.speedDelayError(reading: truth, at: t(1.2))
    let error = try #require(first)
    #expect(abs(error - 0.2) < 1e-9)
    let again = picture.speedDelayError(reading: truth, at: t(1.25))
    #expect(again == nil, "measured once")
  }

  @Test("a frozen picture stands where it was put, at the last speed asked")
  func freeze() {
    var picture = MpvPicture()
    picture.start(at: 5, from: t(0), rate: 1.25)
    picture.freeze(at: 42)
    #expect(picture.anchor == nil)
    #expect(picture.projected(at: t(10), moving: true) == 42)
    #expect(picture.speed == 1.25)
  }

  @Test("seek latency rises at once and falls slowly; unpause lead learns only plausible delays")
  func timing() {
    var timing = MpvTiming(configuration: .init(unpauseLead: 0.0005, defaultSeekLatency: 0.08))
    timing.seekTook(0.2)
    #expect(timing.seekLatency == 0.2)
    timing.seekTook(0.05)
    #expect(abs(timing.seekLatency - 0.17) < 1e-9)
    timing.unpauseTook(0.3)
    #expect(timing.unpauseLead == 0.0005, "a 300 ms miss is a loaded machine, not mpv")
    timing.unpauseTook(0.01)
    #expect(abs(timing.unpauseLead - (0.7 * 0.0005 + 0.3 * 0.01)) < 1e-12)
  }

  @Test("a slow exchange is believed in part; a gap past its own uncertainty in full")
  func exchanges() {
    var timing = MpvTiming(configuration: .init(trustedExchange: 0.0003))
    #expect(timing.exchanged(in: 0.0002) == 1)
    let slow = timing.exchanged(in: 0.004)
    #expect(slow < 0.1)
    let taken = MpvTiming.believable(0.005, weight: slow, exchange: 0.004)
    #expect(taken > 0.003 && taken < 0.005, "beyond half the exchange, the gap is real")
  }
}

@Suite("Telling the driver's own changes to mpv from the person's")
struct MpvEchoTests {
  func t(_ seconds: Double) -> LocalInstant { LocalInstant(seconds: 100 + seconds) }

  @Test(
    "the driver's pause comes back as its own; a later one from mpv, read to be sure, is the person's"
  )
  func pause() {
    var echo = MpvEcho()
    echo.sending(MpvRequest(id: 1, .setPause(false)))
    let answerRead = echo.pause.answered(1)
    let ownRead = echo.pause.reported(false, at: t(0.01))
    #expect(!answerRead && !ownRead)
    // mpv reports a pause the driver did not ask for: read, and the reading agrees.
    let doubted = echo.pause.reported(true, at: t(5))
    echo.pause.reading(2)
    let person = echo.pause.read(true)
    let again = echo.pause.read(true)
    let repeated = echo.pause.reported(true, at: t(5.1))
    #expect(doubted && person?.value == true && person?.reportedAt == t(5))
    #expect(again == nil, "told once")
    #expect(!repeated, "the same again is no change")
  }

  @Test(
    "mpv coalesces quick changes: a pause and an unpause reported as nothing at all do not swallow the person's next press"
  )
  func coalesced() {
    var echo = MpvEcho()
    echo.sending(MpvRequest(id: 1, .setPause(false)))
    _ = echo.pause.answered(1)
    // A re-sync: paused and unpaused at once; mpv reports neither (its value is unchanged
    // by the time it looks).
    echo.sending(MpvRequest(id: 2, .setPause(true)))
    echo.sending(MpvRequest(id: 3, .setPause(false)))
    let afterPause = echo.pause.answered(2)
    let afterUnpause = echo.pause.answered(3)
    #expect(!afterPause && !afterUnpause)
    // The person presses space a moment later.
    let doubted = echo.pause.reported(true, at: t(0.3))
    echo.pause.reading(4)
    let person = echo.pause.read(true)
    #expect(doubted && person?.reportedAt == t(0.3))
  }

  @Test("a report of a value already overtaken is read, and the reading shows the driver's own")
  func overtaken() {
    var echo = MpvEcho()
    echo.sending(MpvRequest(id: 1, .setPause(true)))
    echo.sending(MpvRequest(id: 2, .setPause(false)))
    // Reported while mpv has not answered: nothing is read until it has.
    let early = echo.pause.reported(true, at: t(0))
    let first = echo.pause.answered(1)
    let last = echo.pause.answered(2)
    #expect(!early && !first && last)
    echo.pause.reading(3)
    let own = echo.pause.read(false)
    #expect(own == nil)
    // A reading answered while a newer change of the driver's is on its way says nothing.
    let doubted = echo.pause.reported(true, at: t(1))
    echo.pause.reading(4)
    echo.sending(MpvRequest(id: 5, .setPause(true)))
    let overtaken = echo.pause.read(true)
    #expect(doubted && overtaken == nil)
  }

  @Test("a speed comes back rounded to six decimals, still the driver's own")
  func speed() {
    var echo = MpvEcho()
    echo.sending(MpvRequest(id: 1, .setSpeed(1.0512345678)))
    _ = echo.speed.answered(1)
    let own = echo.speed.reported(1.051235, at: t(0.02))
    let doubted = echo.speed.reported(1.5, at: t(3))
    echo.speed.reading(2)
    let person = echo.speed.read(1.5)
    #expect(!own && doubted && person?.value == 1.5)
  }

  @Test("a file is opened paused: its pause is the driver's")
  func load() {
    var echo = MpvEcho()
    echo.sending(MpvRequest(id: 1, .setPause(false)))
    _ = echo.pause.answered(1)
    echo.sending(MpvRequest(id: 2, .loadPaused(path: "/media/a.mp4", start: 0)))
    _ = echo.pause.answered(2)
    let doubted = echo.pause.reported(true, at: t(1))
    #expect(!doubted)
  }
}
