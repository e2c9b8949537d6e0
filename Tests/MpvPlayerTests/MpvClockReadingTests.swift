import PlaybackCoordination
import Testing

@testable import MpvPlayer

@Suite("Reading mpv's clock: when, which clock, and which readings are believed")
struct MpvClockReadingTests {
  /// Defaults: a reading every 50 ms, unanswered after 1 s, settling 300 ms after a start,
  /// a start missed by 50 ms, an outlier 2 ms off.
  let configuration = MpvPlaybackMachine.Configuration()

  func t(_ seconds: Double) -> LocalInstant { LocalInstant(seconds: seconds) }

  /// Sends the reading due at `time` (request `id`) and answers it 1 ms later with
  /// `value` (nil: an error, no clock); nil when no reading was due.
  func poll(
    _ clock: inout MpvClockReading, id: Int, at time: Double, answer value: Double?,
    counts: Bool = true
  ) -> MpvClockReading.Answer? {
    guard case .read = clock.due(at: t(time)) else { return nil }
    clock.reading(id, sentAt: t(time))
    return clock.answered(value, at: t(time + 0.001), counts: counts)
  }

  /// Answers `count` readings, a poll interval apart from `from`, with no clock.
  func miss(_ clock: inout MpvClockReading, _ count: Int, from: Double, counts: Bool = true) {
    for n in 0..<count {
      let answer = poll(&clock, id: n + 1, at: from + Double(n) * 0.05, answer: nil, counts: counts)
      #expect(answer == .nothing)
    }
  }

  // MARK: - Polling

  @Test("reads at once, one reading at a time, then every poll interval")
  func cadence() {
    var clock = MpvClockReading(configuration: configuration)
    #expect(clock.due(at: t(2)) == .read(.audioPTS))
    clock.reading(7, sentAt: t(2))
    #expect(clock.isReading(7) && !clock.isReading(8))
    #expect(clock.due(at: t(2.06)) == nil, "one reading at a time, however late its answer")
    #expect(clock.nextWake == t(3), "woken when the reading would be unanswered")
    let answer = clock.answered(10, at: t(2.004), counts: true)
    guard case .value(let value, let midpoint, let exchange) = answer else {
      Issue.record("expected a value, got \(answer)")
      return
    }
    #expect(value == 10)
    #expect(abs(exchange - 0.004) < 1e-9)
    #expect(abs(midpoint.seconds(since: t(2.002))) < 1e-9, "read at the exchange's midpoint")
    #expect(!clock.isReading(7))
    #expect(clock.nextWake == t(2).advanced(bySeconds: 0.05), "a poll interval after the last")
    #expect(clock.due(at: t(2.049)) == nil)
    #expect(clock.due(at: t(2.05)) == .read(.audioPTS))
  }

  @Test("an answer with no reading in flight, or one that does not count, is nothing to take")
  func answersThatDoNotCount() {
    var clock = MpvClockReading(configuration: configuration)
    #expect(clock.answered(10, at: t(1), counts: true) == .nothing, "nothing was asked")
    #expect(poll(&clock, id: 1, at: 1, answer: 10, counts: false) == .nothing)
    #expect(!clock.isReading(1), "the reading is done all the same")
    #expect(clock.due(at: t(1.05)) == .read(.audioPTS))
  }

  @Test("a reading unanswered for a second makes mpv silent, until it answers; read again at once")
  func silentAndBack() {
    var clock = MpvClockReading(configuration: configuration)
    clock.reading(1, sentAt: t(5))
    #expect(clock.due(at: t(5.999)) == nil)
    #expect(!clock.silent)
    #expect(clock.due(at: t(6)) == .unanswered)
    #expect(clock.silent)
    // The late answer's moment is unknown: not taken, however it reads.
    #expect(clock.answered(12, at: t(7.5), counts: false) == .back)
    #expect(!clock.silent)
    #expect(clock.nextWake == t(7.5))
    #expect(clock.due(at: t(7.5)) == .read(.audioPTS), "the next reading places it, at once")
  }

  @Test("a preparation drops the reading in flight, and says whether it ends a silence")
  func preparing() {
    var clock = MpvClockReading(configuration: configuration)
    clock.reading(1, sentAt: t(5))
    #expect(clock.preparing() == false)
    #expect(!clock.isReading(1))
    #expect(clock.answered(12, at: t(5.01), counts: true) == .nothing, "a dropped reading")
    clock.reading(2, sentAt: t(6))
    #expect(clock.due(at: t(7)) == .unanswered)
    #expect(clock.preparing() == true, "silent: the preparation's answer says whether mpv is back")
    #expect(!clock.silent && !clock.isReading(2))
    #expect(clock.preparing() == false)
  }

  // MARK: - Suspicion

  @Test("a reading far off is held, and believed when the next one agrees")
  func outlierConfirmed() {
    var clock = MpvClockReading(configuration: configuration)
    #expect(clock.judge(0.0015, at: t(1)) == .believed(measuresStart: false), "within 2 ms")
    #expect(clock.judge(0.005, at: t(1.05)) == .doubted)
    #expect(clock.judge(0.0055, at: t(1.1)) == .believed(measuresStart: false), "confirmed")
    // Confirmed once: the next far reading is doubted afresh.
    #expect(clock.judge(0.0055, at: t(1.15)) == .doubted)
  }

  @Test("a held reading the next one contradicts stays doubted; one near the model clears it")
  func outlierNotConfirmed() {
    var clock = MpvClockReading(configuration: configuration)
    #expect(clock.judge(0.005, at: t(1)) == .doubted)
    #expect(clock.judge(-0.005, at: t(1.05)) == .doubted, "10 ms from the one held")
    #expect(clock.judge(-0.0045, at: t(1.1)) == .believed(measuresStart: false))
    #expect(clock.judge(0.005, at: t(1.15)) == .doubted)
    #expect(clock.judge(0, at: t(1.2)) == .believed(measuresStart: false))
    #expect(clock.judge(0.005, at: t(1.25)) == .doubted, "the model was right again: held anew")
  }

  @Test("a held reading means nothing once the model moves (a freeze, a start)")
  func modelMoved() {
    var clock = MpvClockReading(configuration: configuration)
    #expect(clock.judge(0.005, at: t(1)) == .doubted)
    clock.modelMoved()
    #expect(clock.judge(0.005, at: t(1.05)) == .doubted)
    clock.unpaused(scheduledFor: t(2), at: t(2))
    #expect(clock.judge(0.005, at: t(2.4)) == .doubted, "settled, but not confirmed")
  }

  // MARK: - Scheduled start

  @Test("after a scheduled start: read at once, settling noise doubted, the first settled measures")
  func scheduledStart() {
    var clock = MpvClockReading(configuration: configuration)
    clock.reading(1, sentAt: t(9))
    _ = clock.answered(5, at: t(9.001), counts: true)
    clock.unpaused(scheduledFor: t(10), at: t(9.9995))
    #expect(clock.due(at: t(9.9995)) == .read(.audioPTS), "not a poll interval later")
    #expect(clock.judge(0.02, at: t(10.1)) == .doubted, "mpv's clock jumps just after a start")
    #expect(clock.judge(-0.049, at: t(10.29)) == .doubted)
    #expect(clock.judge(0.001, at: t(10.31)) == .believed(measuresStart: true))
    #expect(clock.judge(0.001, at: t(10.36)) == .believed(measuresStart: false), "measured once")
  }

  @Test("a start missed by more than settling noise is believed at once, and measures nothing")
  func missedStart() {
    var clock = MpvClockReading(configuration: configuration)
    clock.unpaused(scheduledFor: t(10), at: t(10))
    #expect(clock.judge(-0.1, at: t(10.05)) == .missedStart, "not held as an outlier either")
    #expect(clock.judge(0.001, at: t(10.1)) == .believed(measuresStart: false))
    #expect(clock.judge(0.02, at: t(10.15)) == .doubted, "no longer settling: an outlier")
  }

  @Test("the start is measured by the first settled reading believed, not one held")
  func settledOutlier() {
    var clock = MpvClockReading(configuration: configuration)
    clock.unpaused(scheduledFor: t(10), at: t(10))
    #expect(clock.judge(0.01, at: t(10.4)) == .doubted)
    #expect(clock.judge(0.0101, at: t(10.45)) == .believed(measuresStart: true))
  }

  @Test("a cancelled start is not measured, and its readings are not settling")
  func startCancelled() {
    var clock = MpvClockReading(configuration: configuration)
    clock.unpaused(scheduledFor: t(10), at: t(10))
    clock.startCancelled()
    #expect(clock.judge(0.02, at: t(10.1)) == .doubted)
    #expect(clock.judge(0.02, at: t(10.15)) == .believed(measuresStart: false), "confirmed")
  }

  @Test("a late start reads a poll interval later and measures nothing")
  func lateStart() {
    var clock = MpvClockReading(configuration: configuration)
    clock.reading(1, sentAt: t(9))
    _ = clock.answered(5, at: t(9.001), counts: true)
    clock.unpausedLate(at: t(10))
    #expect(clock.due(at: t(10)) == nil)
    #expect(clock.nextWake == t(10).advanced(bySeconds: 0.05))
    #expect(clock.due(at: t(10.05)) == .read(.audioPTS))
    #expect(clock.judge(0.001, at: t(10.1)) == .believed(measuresStart: false))
  }

  // MARK: - Audio misses

  @Test("an audio clock that never comes: after 20 misses the frame clock is read")
  func audioNeverComes() {
    var clock = MpvClockReading(configuration: configuration)
    miss(&clock, 19, from: 1)
    #expect(clock.readsAudio)
    miss(&clock, 1, from: 2)
    #expect(!clock.readsAudio)
    #expect(clock.due(at: t(3)) == .read(.timePos))
    // The frame clock moves in whole frames: never doubted, never measures a start.
    clock.unpaused(scheduledFor: t(4), at: t(4))
    #expect(clock.judge(0.03, at: t(4.05)) == .believed(measuresStart: false))
    #expect(clock.judge(-0.03, at: t(4.1)) == .believed(measuresStart: false))
  }

  @Test("misses count only while the answer counts, and not once the audio clock was seen")
  func audioMissesThatDoNotCount() {
    var clock = MpvClockReading(configuration: configuration)
    miss(&clock, 25, from: 1, counts: false)
    #expect(clock.readsAudio, "not playing: an audio clock is not expected")
    #expect(clock.judge(0, at: t(3)) == .believed(measuresStart: false))
    miss(&clock, 25, from: 4)
    #expect(clock.readsAudio, "the file has audio: a miss now is a moment without it")
  }

  @Test("a new file looks for its audio clock again, its misses counted afresh")
  func fileLoaded() {
    var clock = MpvClockReading(configuration: configuration)
    miss(&clock, 20, from: 1)
    #expect(!clock.readsAudio)
    clock.fileLoaded()
    #expect(clock.readsAudio)
    #expect(clock.due(at: t(3)) == .read(.audioPTS))
    miss(&clock, 19, from: 3)
    #expect(clock.readsAudio)
    miss(&clock, 1, from: 4)
    #expect(!clock.readsAudio)
  }
}
