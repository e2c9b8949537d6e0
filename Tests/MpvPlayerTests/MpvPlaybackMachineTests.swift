import PlaybackCoordination
import Testing

@testable import MpvPlayer

private func t(_ seconds: Double) -> LocalInstant { LocalInstant(seconds: seconds) }

/// The requests among `effects`, as their command arrays.
private func commands(_ effects: [MpvPlaybackMachine.Effect]) -> [[MpvValue]] {
  effects.map { if case .send(let r) = $0 { r.command } else { [] } }
}

private func ids(_ effects: [MpvPlaybackMachine.Effect]) -> [Int] {
  effects.map { if case .send(let r) = $0 { r.id } else { -1 } }
}

/// A machine with `clip` loaded and paused at `at` (the load's reply and mpv's restart
/// answered at 1.05 s).
private func loaded(at position: Double = 5) -> MpvPlaybackMachine {
  var m = MpvPlaybackMachine()
  _ = m.start()
  let load = m.perform(.load(item: "clip", at: position), path: "/media/clip.mp4", at: t(1))
  _ = m.received(.reply(requestID: ids(load).last!, data: .null, error: "success"), at: t(1.01))
  _ = m.received(.event("playback-restart"), at: t(1.05))
  return m
}

/// A machine told at 1.5 s to play from 5 at 2 s, prepared there (seek answered, mpv
/// restarted) and waiting for the instant.
private func prerolled() -> MpvPlaybackMachine {
  var m = loaded()
  let play = m.perform(.play(itemTime: 5, startAt: t(2), rate: 1), path: nil, at: t(1.5))
  _ = answer(&m, play, at: 1.51)
  _ = m.received(.event("playback-restart"), at: t(1.55))
  return m
}

/// Answers every request among `effects` as mpv does once it has done them; returns what
/// the machine sends then.
private func answer(
  _ m: inout MpvPlaybackMachine, _ effects: [MpvPlaybackMachine.Effect], at time: Double
) -> [MpvPlaybackMachine.Effect] {
  ids(effects).flatMap {
    m.received(.reply(requestID: $0, data: .null, error: "success"), at: t(time))
  }
}

/// mpv reports `property` changed to `value` at `time` — the person's doing — and answers
/// the reading the machine sends then; returns what the machine sends after it.
private func person(
  _ m: inout MpvPlaybackMachine, _ property: MpvProperty, _ value: MpvValue, at time: Double
) -> [MpvPlaybackMachine.Effect] {
  let report = m.received(.propertyChange(name: property, data: value), at: t(time))
  guard commands(report) == [["get_property", .string(property.name)]] else {
    Issue.record("expected a reading of \(property), got \(commands(report))")
    return []
  }
  return m.received(.reply(requestID: ids(report)[0], data: value, error: "success"), at: t(time))
}

/// Wakes `m` at `time` and answers the audio-clock read it sends then with `value` at once.
private func read(_ m: inout MpvPlaybackMachine, at time: Double, _ value: Double) {
  let poll = ids(m.wake(at: t(time))).last!
  _ = m.received(.reply(requestID: poll, data: .number(value), error: "success"), at: t(time))
}

@Suite("MpvPlaybackMachine drives mpv")
struct MpvPlaybackMachineTests {
  @Test("a load asks mpv for the file paused at the item time; busy until mpv restarts")
  func load() {
    var m = MpvPlaybackMachine()
    #expect(commands(m.start()).map { $0.first } == Array(repeating: "observe_property", count: 5))
    let load = m.perform(.load(item: "clip", at: 12.5), path: "/media/clip.mp4", at: t(1))
    #expect(
      commands(load) == [
        ["loadfile", "/media/clip.mp4", "replace", "start=12.5,pause=yes,ytdl=no"]
      ])
    #expect(m.observation(at: t(1.02)).isBusy)
    // mpv's restart before the reply is an earlier seek's, not this load's.
    _ = m.received(.event("playback-restart"), at: t(1.02))
    #expect(m.observation(at: t(1.03)).isBusy)
    _ = m.received(.reply(requestID: ids(load)[0], data: .null, error: "success"), at: t(1.03))
    _ = m.received(.event("playback-restart"), at: t(1.07))
    let seen = m.observation(at: t(1.1))
    #expect(!seen.isBusy && seen.position == 12.5 && seen.rate == 0 && seen.item == "clip")
    #expect(seen.preparedAt == t(1.07))
  }

  @Test("a scheduled start prepares on the start frame and unpauses just before the instant")
  func scheduledStart() {
    var m = loaded()
    let play = m.perform(.play(itemTime: 5, startAt: t(3), rate: 1), path: nil, at: t(2))
    #expect(
      commands(play) == [
        ["set_property", "pause", .bool(true)], ["set_property", "speed", .number(1)],
        ["seek", .number(5), "absolute+exact"],
      ])
    _ = m.received(.reply(requestID: ids(play)[2], data: .null, error: "success"), at: t(2.01))
    _ = m.received(.event("playback-restart"), at: t(2.05))
    #expect(m.observation(at: t(2.5)).isBusy)
    #expect(m.nextWake == t(3 - 0.0005))
    #expect(commands(m.wake(at: t(2.9995))).first == ["set_property", "pause", .bool(false)])
    let seen = m.observation(at: t(4))
    #expect(!seen.isBusy && abs(seen.position - 6) < 1e-9 && seen.rate == 1)
  }

  @Test("a start's seek that lands on the next frame unpauses when the line reaches that frame")
  func landedOnFrame() throws {
    var m = loaded()
    let play = m.perform(.play(itemTime: 5.02, startAt: t(3), rate: 0.5), path: nil, at: t(2))
    _ = m.received(.reply(requestID: ids(play)[2], data: .null, error: "success"), at: t(2.01))
    let restarted = m.received(.event("playback-restart"), at: t(2.05))
    // mpv (24 fps) shows the frame at 5.041667: playing goes on from there.
    try #require(commands(restarted) == [["get_property", "time-pos"]])
    #expect(m.nextWake == t(3 - 0.0005))
    _ = m.received(
      .reply(requestID: ids(restarted)[0], data: .number(5.041667), error: "success"),
      at: t(2.0502))
    // At rate 0.5 the line reaches 5.041667 43.334 ms after 3 s.
    let due = 3 + (5.041667 - 5.02) / 0.5
    #expect(abs(try #require(m.nextWake).seconds(since: t(due - 0.0005))) < 1e-9)
    #expect(m.observation(at: t(2.5)).isBusy)
    #expect(abs(m.observation(at: t(2.5)).position - 5.041667) < 1e-9)
    let unpause = try #require(m.nextWake)
    #expect(commands(m.wake(at: unpause)).first == ["set_property", "pause", .bool(false)])
    // On the group's line: 5.02 at 3 s, 5.52 at 4 s.
    #expect(abs(m.observation(at: t(4)).position - 5.52) < 1e-9)
    // A later preparation forgets an answer still on its way.
    var late = loaded()
    let again = late.perform(.play(itemTime: 5.02, startAt: t(3), rate: 1), path: nil, at: t(2))
    _ = late.received(.reply(requestID: ids(again)[2], data: .null, error: "success"), at: t(2.01))
    let query = try #require(ids(late.received(.event("playback-restart"), at: t(2.05))).first)
    _ = late.perform(.pause(at: 7), path: nil, at: t(2.06))
    _ = late.received(
      .reply(requestID: query, data: .number(5.041667), error: "success"), at: t(2.07))
    #expect(late.observation(at: t(2.5)).position == 7)
  }

  @Test("a start's landing answered after mpv already plays moves the model to that frame")
  func landedAfterStart() throws {
    var m = loaded()
    // Told to start at once (the instant is past): it unpauses as soon as mpv is ready.
    let play = m.perform(.play(itemTime: 5.02, startAt: t(1.9), rate: 1), path: nil, at: t(2))
    _ = m.received(.reply(requestID: ids(play)[2], data: .null, error: "success"), at: t(2.01))
    let restarted = m.received(.event("playback-restart"), at: t(2.05))
    // The seek went to the line's spot at 2 s (5.12), the start from there at 2.05 s.
    try #require(commands(restarted).map { $0.last } == [.bool(false), "time-pos"])
    #expect(abs(m.observation(at: t(2.15)).position - 5.22) < 1e-9)
    _ = m.received(
      .reply(requestID: ids(restarted)[1], data: .number(5.125), error: "success"), at: t(2.06))
    #expect(abs(m.observation(at: t(2.15)).position - 5.225) < 1e-9)
  }

  @Test("a start woken late is known late from its first instant, and not taken for mpv's lead")
  func wokenLate() {
    var m = prerolled()
    let lead = m.unpauseLead
    // Due at 1.9995 s, woken 1 ms later (a busy machine).
    read(&m, at: 2.0005, 5)
    #expect(abs(m.observation(at: t(2.1)).position - 5.099) < 1e-9)
    // mpv started just as late as the lead allows for after that: nothing to learn.
    read(&m, at: 2.3, 5.299)
    #expect(abs(m.unpauseLead - lead) < 1e-9)
  }

  @Test("a start delayed on purpose is sent that late, once, and the next is on time")
  func delayedStart() {
    var m = loaded()
    m.delayNextStart(by: 0.1)
    let play = m.perform(.play(itemTime: 5, startAt: t(3), rate: 1), path: nil, at: t(2))
    _ = m.received(.reply(requestID: ids(play)[2], data: .null, error: "success"), at: t(2.01))
    _ = m.received(.event("playback-restart"), at: t(2.05))
    #expect(m.nextWake == t(3.1 - 0.0005))
    #expect(m.nextStartDelay == 0)
    _ = m.wake(at: t(3.0995))
    _ = m.perform(.pause(at: 7), path: nil, at: t(5))
    let again = m.perform(.play(itemTime: 7, startAt: t(8), rate: 1), path: nil, at: t(6))
    let seek = ids(again).last!
    _ = m.received(.reply(requestID: seek, data: .null, error: "success"), at: t(6.01))
    _ = m.received(.event("playback-restart"), at: t(6.05))
    #expect(m.nextWake == t(8 - 0.0005))
  }

  @Test("a seek while playing plays on until the seek latency before the switch")
  func seekWhilePlaying() {
    var m = prerolled()
    read(&m, at: 1.9995, 5)
    // Told at 10 s to be at 300 at 11 s: nothing for mpv yet.
    #expect(m.perform(.play(itemTime: 300, startAt: t(11), rate: 1), path: nil, at: t(10)).isEmpty)
    #expect(abs(m.observation(at: t(10.5)).position - 13.5) < 1e-9)
    let begin = t(11 - 2 * m.seekLatency - 0.05 - 0.0005)
    // Played on (and read) until just before it.
    read(&m, at: 10.7, 13.7)
    #expect(m.nextWake == t(10.75))
    let switching = m.wake(at: begin)
    #expect(commands(switching).last == ["seek", .number(300), "absolute+exact"])
  }

  @Test("a rate change is prepared like a seek and switched to at its instant")
  func rateChange() {
    var m = prerolled()
    read(&m, at: 1.9995, 5)
    // Told at 10 s: from 12 s on, rate 2 (the line is at 15 then).
    #expect(m.perform(.play(itemTime: 15, startAt: t(12), rate: 2), path: nil, at: t(10)).isEmpty)
    let begin = t(12 - 2 * m.seekLatency - 0.05 - 0.0005)
    read(&m, at: 11.7, 14.7)
    #expect(!commands(m.wake(at: t(11.75))).contains { $0.first == "seek" })
    let switching = m.wake(at: begin)
    #expect(
      commands(switching) == [
        ["set_property", "pause", .bool(true)], ["set_property", "speed", .number(2)],
        ["seek", .number(15), "absolute+exact"],
      ])
    _ = m.received(.reply(requestID: ids(switching)[2], data: .null, error: "success"), at: begin)
    _ = m.received(.event("playback-restart"), at: t(11.95))
    #expect(commands(m.wake(at: t(11.9995))).first == ["set_property", "pause", .bool(false)])
    #expect(abs(m.observation(at: t(13)).position - 17) < 1e-9)
  }

  @Test("the audio clock read at the midpoint of the exchange anchors the position")
  func audioClock() {
    var m = prerolled()
    let started = m.wake(at: t(1.9995))
    #expect(
      commands(started) == [
        ["set_property", "pause", .bool(false)], ["get_property", "audio-pts"],
      ])
    // Once the start has settled: sent at 2.4, answered at 2.4004; mpv's audio was at
    // 5.3997 at 2.4002, 0.5 ms behind the 5.4002 it was meant to show; the model follows
    // mpv, not the plan.
    _ = m.received(
      .reply(requestID: ids(started)[1], data: .number(5), error: "success"), at: t(2))
    let read = m.wake(at: t(2.4))
    #expect(commands(read) == [["get_property", "audio-pts"]])
    _ = m.received(
      .reply(requestID: ids(read)[0], data: .number(5.3997), error: "success"), at: t(2.4004))
    #expect(abs(m.observation(at: t(2.5002)).position - 5.4997) < 1e-9)
    // The next read is due a poll interval after the last was sent.
    #expect(m.nextWake == t(2.45))
  }

  @Test(
    "just after a start mpv's audio clock is not believed; the first settled reading teaches the unpause lead"
  )
  func startSettling() {
    var m = prerolled()
    let lead = m.unpauseLead
    // Unsettled readings 35 ms behind, then 8 ms ahead (as mpv's are just after an
    // unpause): the model stays on the schedule, and the lead is not taught their noise.
    read(&m, at: 1.9995, 4.965)
    #expect(abs(m.observation(at: t(2.05)).position - 5.05) < 1e-9)
    read(&m, at: 2.05, 5.058)
    #expect(abs(m.observation(at: t(2.1)).position - 5.1) < 1e-9)
    #expect(m.unpauseLead == lead)
    // Settled: mpv started 1 ms late (0.5 ms more than the lead allowed for).
    read(&m, at: 2.3, 5.299)
    #expect(abs(m.observation(at: t(2.3)).position - 5.299) < 1e-9)
    #expect(abs(m.unpauseLead - (0.7 * lead + 0.3 * 0.0015)) < 1e-9)
  }

  @Test("a start that really missed (mpv 100 ms late) is believed at once, and teaches nothing")
  func startMissed() {
    var m = prerolled()
    let lead = m.unpauseLead
    // The first reading, at the start itself, shows mpv not yet moving: 100 ms on, it is
    // 100 ms behind.
    read(&m, at: 1.9995, 5)
    #expect(abs(m.observation(at: t(2.15)).position - 5.15) < 1e-9)
    read(&m, at: 2.15, 5.05)
    #expect(abs(m.observation(at: t(2.15)).position - 5.05) < 1e-9)
    #expect(m.unpauseLead == lead)
  }

  @Test(
    "one reading of the audio clock far from the model is held; a second that agrees is believed")
  func outlierReading() {
    var m = prerolled()
    read(&m, at: 1.9995, 5)
    read(&m, at: 3, 6)
    #expect(abs(m.observation(at: t(3)).position - 6) < 1e-9)
    // 8 ms ahead once, then on the line again: the model never moved.
    read(&m, at: 3.05, 6.058)
    #expect(abs(m.observation(at: t(3.05)).position - 6.05) < 1e-9)
    read(&m, at: 3.1, 6.1)
    #expect(abs(m.observation(at: t(3.1)).position - 6.1) < 1e-9)
    // 5 ms behind twice in a row: the player really is behind.
    read(&m, at: 3.15, 6.145)
    #expect(abs(m.observation(at: t(3.15)).position - 6.15) < 1e-9)
    read(&m, at: 3.2, 6.195)
    #expect(abs(m.observation(at: t(3.2)).position - 6.195) < 1e-9)
  }

  @Test(
    "an mpv that stops answering while playing (frozen, stopped) is a stalled player after a second, not one in step; its next answer brings it back"
  )
  func unanswered() {
    var m = prerolled()
    read(&m, at: 1.9995, 5)
    read(&m, at: 3, 6)
    // A reading goes out at 3.05 and no answer comes.
    let poll = ids(m.wake(at: t(3.05))).last!
    #expect(!m.observation(at: t(3.5)).isStalled)
    #expect(m.nextWake == t(4.05))
    _ = m.wake(at: t(4.05))
    let frozen = m.observation(at: t(5))
    #expect(frozen.isStalled && frozen.rate == 0)
    #expect(abs(frozen.position - 7.05) < 1e-9, "where it was when it stopped answering")
    // mpv answers again at 9 s, from where it stood (a stopped process plays nothing).
    _ = m.received(.reply(requestID: poll, data: .number(7.06), error: "success"), at: t(9))
    let back = m.observation(at: t(9))
    #expect(!back.isStalled && back.rate == 1)
    #expect(commands(m.wake(at: t(9.05))).last == ["get_property", "audio-pts"])
  }

  @Test("a reading from a slow exchange with mpv moves the model only in part")
  func slowExchange() {
    var m = prerolled()
    read(&m, at: 1.9995, 5)
    // Quick exchanges (0.1 ms) on the line.
    for k in 0..<5 {
      let sent = 3 + 0.05 * Double(k)
      let poll = ids(m.wake(at: t(sent))).last!
      _ = m.received(
        .reply(requestID: poll, data: .number(6 + 0.05 * Double(k) + 0.00005), error: "success"),
        at: t(sent + 0.0001))
    }
    #expect(abs(m.observation(at: t(3.3)).position - 6.3) < 1e-9)
    // Sent at 3.3, answered 1.5 ms later: its midpoint may be 0.75 ms off. It says 0.6 ms
    // behind; believed at (0.3 / 1.5)² = 4 %.
    let slow = ids(m.wake(at: t(3.3))).last!
    _ = m.received(
      .reply(requestID: slow, data: .number(6.30075 - 0.0006), error: "success"), at: t(3.3015))
    #expect(abs(m.observation(at: t(3.4)).position - (6.4 - 0.04 * 0.0006)) < 1e-9)
    // The next quick one that says the same is believed in full.
    let quick = ids(m.wake(at: t(3.35))).last!
    _ = m.received(
      .reply(requestID: quick, data: .number(6.35005 - 0.0006), error: "success"),
      at: t(3.3501))
    #expect(abs(m.observation(at: t(3.4)).position - (6.4 - 0.0006)) < 1e-9)
    // A loaded machine: every exchange takes 4 ms, and mpv really is 10 ms behind (twice in
    // a row, so not a single odd reading). Only ±2 ms of it can be the midpoint's error:
    // the other 8 ms are taken at once.
    for (k, sent) in [3.5, 3.55].enumerated() {
      let poll = ids(m.wake(at: t(sent))).last!
      _ = m.received(
        .reply(requestID: poll, data: .number(sent + 3.002 - 0.0006 - 0.01), error: "success"),
        at: t(sent + 0.004))
      if k == 0 { #expect(abs(m.observation(at: t(3.6)).position - (6.6 - 0.0006)) < 1e-9) }
    }
    // (The 2 ms within come in at a small weight: under a tenth of them.)
    let moved = m.observation(at: t(3.6)).position - (6.6 - 0.0006)
    #expect(moved <= -0.008 && moved > -0.0082, "moved \(moved)")
  }

  @Test(
    "a speed change shows after mpv's speed delay; its audio clock's jump is not taken for a gap")
  func speedDelay() {
    var m = prerolled()
    var pollID = ids(m.wake(at: t(1.9995)))[1]
    _ = m.received(.reply(requestID: pollID, data: .number(5), error: "success"), at: t(2))
    // A nudge at 3 s: the picture still plays at 1 until 3.39 s, then at 1.01.
    #expect(
      commands(m.perform(.setRate(1.01), path: nil, at: t(3))) == [
        ["set_property", "speed", .number(1.01)]
      ])
    #expect(abs(m.observation(at: t(3.2)).position - 6.2) < 1e-9)
    #expect(abs(m.observation(at: t(4.39)).position - (7.39 + 0.01)) < 1e-9)
    // mpv's audio clock, read at 3.2 (sent and answered at once), already counts the new
    // speed from 3 s on, less what is still buffered: 6.2 − 0.01 × 0.19. The model keeps
    // the picture's 6.2.
    pollID = ids(m.wake(at: t(3.2)))[0]
    _ = m.received(
      .reply(requestID: pollID, data: .number(6.2 - 0.0019), error: "success"), at: t(3.2))
    #expect(abs(m.observation(at: t(3.2)).position - 6.2) < 1e-9)
    #expect(abs(m.speedDelay - 0.39) < 1e-9)
    // Another nudge on a player whose delay is really 0.3 s: the delay is learned from the
    // jump.
    _ = m.perform(.setRate(1.02), path: nil, at: t(5))
    pollID = ids(m.wake(at: t(5.1)))[0]
    let truth = m.observation(at: t(5.1)).position
    _ = m.received(
      .reply(requestID: pollID, data: .number(truth - 0.01 * 0.2), error: "success"), at: t(5.1))
    #expect(m.speedDelay < 0.39 && m.speedDelay > 0.3)
  }

  @Test("a pause stops exactly at the item time: mpv pauses, then seeks there")
  func pause() {
    var m = loaded()
    let pause = m.perform(.pause(at: 7.25), path: nil, at: t(3))
    #expect(
      commands(pause) == [
        ["set_property", "pause", .bool(true)], ["seek", .number(7.25), "absolute+exact"],
      ])
    #expect(m.observation(at: t(3.01)).isBusy)
    _ = m.received(.reply(requestID: ids(pause)[1], data: .null, error: "success"), at: t(3.01))
    _ = m.received(.event("playback-restart"), at: t(3.04))
    let seen = m.observation(at: t(3.1))
    #expect(!seen.isBusy && seen.position == 7.25 && seen.rate == 0)
  }

  @Test(
    "mpv pausing by itself at the end of the file (keep-open) is the end, not the person's pause, whichever it reports first"
  )
  func pauseAtTheEnd() {
    for endFirst in [false, true] {
      var m = loaded(at: 28)
      _ = m.received(.propertyChange(name: "duration", data: .number(30)), at: t(1.06))
      let play = m.perform(.play(itemTime: 28, startAt: t(2), rate: 1), path: nil, at: t(1.5))
      _ = answer(&m, play, at: 1.51)
      _ = m.received(.event("playback-restart"), at: t(1.55))
      _ = answer(&m, m.wake(at: t(1.9995)), at: 1.9996)
      _ = m.received(.propertyChange(name: "pause", data: .bool(false)), at: t(2.001))
      // Two seconds later mpv is at the end: it pauses and says eof-reached.
      if endFirst {
        _ = m.received(.propertyChange(name: "eof-reached", data: .bool(true)), at: t(4.0))
      }
      let report = m.received(.propertyChange(name: "pause", data: .bool(true)), at: t(4.0))
      for id in ids(report) {
        _ = m.received(.reply(requestID: id, data: .bool(true), error: "success"), at: t(4.001))
      }
      if !endFirst {
        _ = m.received(.propertyChange(name: "eof-reached", data: .bool(true)), at: t(4.002))
      }
      #expect(m.takeUserActions().isEmpty, "eof-reached first: \(endFirst)")
      let seen = m.observation(at: t(4.5))
      #expect(seen.position == 30 && seen.rate == 0, "eof-reached first: \(endFirst): \(seen)")
    }
  }

  @Test(
    "a seek past the end: mpv's own landing on the last frame is the end, not the person's jump; a real jump of the person's still counts"
  )
  func seekPastTheEnd() {
    var m = loaded(at: 28)
    _ = m.received(.propertyChange(name: "duration", data: .number(30)), at: t(1.06))
    // The group seeks past the end (paused): the driver's seek, then mpv's own to the
    // last frame, which it reports as any seek.
    let seek = m.perform(.seek(to: 31), path: nil, at: t(2))
    _ = answer(&m, seek, at: 2.01)
    _ = m.received(.event("playback-restart"), at: t(2.05))
    _ = m.received(.event("seek"), at: t(2.1))
    let read = m.received(.event("playback-restart"), at: t(2.12))
    #expect(commands(read) == [["get_property", "time-pos"]])
    _ = m.received(
      .reply(requestID: ids(read)[0], data: .number(29.958), error: "success"), at: t(2.13))
    #expect(m.takeUserActions().isEmpty)
    #expect(m.observation(at: t(2.5)).position == 30)
    // The person's own jump back from there is theirs.
    _ = m.received(.event("seek"), at: t(3))
    let back = m.received(.event("playback-restart"), at: t(3.02))
    _ = m.received(
      .reply(requestID: ids(back)[0], data: .number(20), error: "success"), at: t(3.03))
    #expect(m.takeUserActions() == [.seek(to: 20)])
  }

  @Test("what the person does in mpv itself is told apart from the driver's own changes")
  func userActions() {
    var m = loaded()
    let play = m.perform(.play(itemTime: 5, startAt: t(2), rate: 1), path: nil, at: t(1.5))
    // mpv echoes the driver's own changes: none of them is the person's.
    _ = m.received(.propertyChange(name: "pause", data: .bool(true)), at: t(1.5))
    _ = answer(&m, play, at: 1.51)
    _ = m.received(.event("seek"), at: t(1.51))
    _ = m.received(.event("playback-restart"), at: t(1.55))
    _ = answer(&m, m.wake(at: t(1.9995)), at: 1.9996)
    _ = m.received(.propertyChange(name: "pause", data: .bool(false)), at: t(2.001))
    let nudge = m.perform(.setRate(1.0020004), path: nil, at: t(2.5))
    // …as mpv writes numbers: to six decimals.
    _ = m.received(.propertyChange(name: "speed", data: .number(1.002)), at: t(2.501))
    _ = answer(&m, nudge, at: 2.501)
    #expect(m.takeUserActions().isEmpty)
    // The person presses space in mpv at 3 s: a pause where mpv is.
    _ = person(&m, .pause, .bool(true), at: 3)
    // (The nudge of 2.5 s shows from 2.89 s: mpv follows a new speed after 0.39 s.)
    let paused = m.takeUserActions()
    guard case .pause(let at) = paused.first, paused.count == 1 else {
      Issue.record("expected one pause, got \(paused)")
      return
    }
    #expect(abs(at - (6 + 0.11 * 0.0020004)) < 1e-9)
    #expect(m.observation(at: t(3.5)).rate == 0)
    // …then seeks with the arrow keys: its new position is read once mpv restarts.
    _ = m.received(.event("seek"), at: t(4))
    let read = m.received(.event("playback-restart"), at: t(4.05))
    #expect(commands(read) == [["get_property", "time-pos"]])
    _ = m.received(
      .reply(requestID: ids(read)[0], data: .number(16), error: "success"), at: t(4.06))
    #expect(m.takeUserActions() == [.seek(to: 16)])
    // …and changes the speed.
    _ = person(&m, .speed, .number(1.1), at: 5)
    #expect(m.takeUserActions() == [.rate(1.1)])
  }

  @Test(
    "a re-sync's pause and unpause, which mpv reports as nothing, do not swallow the person's press a moment later (mpv coalesces what it reports)"
  )
  func coalescedReports() {
    var m = prerolled()
    _ = answer(&m, m.wake(at: t(1.9995)), at: 1.9996)
    _ = m.received(.propertyChange(name: "pause", data: .bool(false)), at: t(2.001))
    // A re-sync at 3 s: mpv paused, seeked and unpaused at once; by the time mpv looks,
    // its pause is as before, and it reports nothing.
    let resync = m.perform(.play(itemTime: 6.5, startAt: t(3), rate: 1), path: nil, at: t(3))
    _ = answer(&m, resync, at: 3.001)
    _ = answer(&m, m.received(.event("playback-restart"), at: t(3.01)), at: 3.011)
    _ = answer(&m, m.wake(at: t(3.05)), at: 3.051)
    #expect(m.takeUserActions().isEmpty)
    // The person presses space at 3.2 s.
    _ = person(&m, .pause, .bool(true), at: 3.2)
    #expect(m.takeUserActions().count == 1)
    // A report of a value already overtaken is read, and not taken for the person's.
    var n = prerolled()
    let start = n.wake(at: t(1.9995))
    _ = n.received(.propertyChange(name: "pause", data: .bool(true)), at: t(1.9996))
    let read = answer(&n, start, at: 1.9997)
    #expect(commands(read) == [["get_property", "pause"]])
    _ = n.received(.reply(requestID: ids(read)[0], data: .bool(false), error: "success"), at: t(2))
    #expect(n.takeUserActions().isEmpty && n.observation(at: t(2.5)).rate == 1)
  }

  @Test(
    "space pressed in mpv while the driver holds it paused for a moment (a start, a seek) is the person's: the opposite of what the group does, and mpv stays held"
  )
  func pressWhileHeld() {
    // The group plays from 5 at 2 s; mpv is prerolled, paused by the driver. The person
    // presses space (mpv toggles to playing): they saw a picture about to play or playing
    // (a start, a seek while playing) and meant to stop it.
    var m = prerolled()
    let press = person(&m, .pause, .bool(false), at: 1.8)
    #expect(m.takeUserActions() == [.pause(at: 5)])
    // mpv is paused again at once, and that echo is the driver's, not the person's.
    #expect(commands(press) == [["set_property", "pause", .bool(true)]])
    _ = m.received(.propertyChange(name: "pause", data: .bool(true)), at: t(1.801))
    _ = answer(&m, press, at: 1.801)
    #expect(m.takeUserActions().isEmpty)
    // Until the group decides otherwise, the driver still starts at the instant.
    #expect(commands(m.wake(at: t(1.9995))).contains(["set_property", "pause", .bool(false)]))

    // A seek while playing, being prepared (mpv paused and seeking): the press pauses the
    // group where its line is at that moment.
    var s = prerolled()
    _ = answer(&s, s.wake(at: t(1.9995)), at: 1.9996)
    _ = s.received(.propertyChange(name: "pause", data: .bool(false)), at: t(2.0))
    let seek = s.perform(.play(itemTime: 20, startAt: t(2.1), rate: 1), path: nil, at: t(2.0))
    #expect(commands(seek).first == ["set_property", "pause", .bool(true)])
    let held = s.received(.propertyChange(name: "pause", data: .bool(true)), at: t(2.01))
    #expect(held.isEmpty && s.takeUserActions().isEmpty)
    _ = answer(&s, seek, at: 2.02)
    _ = person(&s, .pause, .bool(false), at: 2.3)
    #expect(s.takeUserActions() == [.pause(at: 20.2)])

    // Paused by the group, being moved to another paused spot: a press means play.
    var p = loaded()
    let pause = p.perform(.pause(at: 9), path: nil, at: t(3))
    _ = answer(&p, pause, at: 3.005)
    _ = person(&p, .pause, .bool(false), at: 3.01)
    #expect(p.takeUserActions() == [.play])
  }

  @Test("mpv gone or a file missing: the player reports the problem and no item")
  func problems() {
    var m = MpvPlaybackMachine()
    #expect(m.perform(.load(item: "clip", at: 0), path: nil, at: t(1)).isEmpty)
    #expect(m.observation(at: t(1)).problem == "no file for clip")
    var gone = loaded()
    gone.lost("mpv stopped (status 9)")
    let seen = gone.observation(at: t(5))
    #expect(seen.item == nil && seen.problem == "mpv stopped (status 9)")
  }

  @Test("the end of the file a load replaces is not the new file failing; an error is")
  func replacedFileEnds() {
    var m = loaded()
    let next = m.perform(.load(item: "clip2", at: 0), path: "/media/clip2.mp4", at: t(2))
    // mpv ends the old file ("stop") while the new one is being prepared.
    _ = m.received(.endFile(reason: "stop"), at: t(2.01))
    _ = m.received(.reply(requestID: ids(next).last!, data: .null, error: "success"), at: t(2.02))
    _ = m.received(.propertyChange(name: "duration", data: .number(30)), at: t(2.03))
    _ = m.received(.event("playback-restart"), at: t(2.05))
    let seen = m.observation(at: t(2.1))
    #expect(seen.problem == nil && seen.item == "clip2" && !seen.isBusy)
    #expect(seen.fileDuration == 30)
    let broken = m.perform(.load(item: "clip3", at: 0), path: "/media/broken.mp4", at: t(3))
    _ = m.received(.reply(requestID: ids(broken).last!, data: .null, error: "success"), at: t(3.01))
    _ = m.received(.endFile(reason: "error"), at: t(3.02))
    #expect(m.observation(at: t(3.1)).problem == "mpv could not play the file")
    #expect(
      MpvMessage.parse(Array(#"{"event":"end-file","reason":"stop","playlist_entry_id":1}"#.utf8))
        == .endFile(reason: "stop"))
  }

  @Test("a hold pauses mpv as a starved player, reported as a stall; unpauses wait for its end")
  func hold() {
    var m = loaded()
    let play = m.perform(.play(itemTime: 5, startAt: t(2), rate: 1), path: nil, at: t(1.5))
    _ = m.received(.reply(requestID: ids(play).last!, data: .null, error: "success"), at: t(1.51))
    _ = m.received(.event("playback-restart"), at: t(1.55))
    _ = m.wake(at: t(1.9995))
    #expect(m.observation(at: t(3)).rate == 1)
    let held = m.hold(until: t(5), at: t(3))
    #expect(commands(held) == [["set_property", "pause", .bool(true)]])
    var seen = m.observation(at: t(4))
    #expect(seen.isStalled && seen.rate == 0 && abs(seen.position - 6) < 1e-9)
    // The driver's own pause is not the person's.
    _ = m.received(.propertyChange(name: "pause", data: .bool(true)), at: t(3.01))
    #expect(m.takeUserActions().isEmpty)
    // A start meanwhile would unpause: that waits for the release.
    let restart = m.perform(.play(itemTime: 6, startAt: t(3.2), rate: 1), path: nil, at: t(3.1))
    _ = m.received(
      .reply(requestID: ids(restart).last!, data: .null, error: "success"), at: t(3.11))
    _ = m.received(.event("playback-restart"), at: t(3.15))
    let blocked = m.wake(at: t(3.2))
    #expect(blocked.contains { m.isHolding($0) })
    #expect(m.nextWake! <= t(5))
    let released = m.wake(at: t(5))
    #expect(
      released.contains {
        if case .send(let r) = $0 {
          r.command == ["set_property", "pause", .bool(false)]
        } else {
          false
        }
      })
    #expect(!released.contains { m.isHolding($0) })
    seen = m.observation(at: t(6))
    #expect(!seen.isStalled && seen.rate == 1)
  }

  @Test("mpv's lines parse; requests are JSON lines with escaped strings")
  func wireFormat() {
    #expect(
      MpvMessage.parse(
        Array(#"{"event":"property-change","id":2,"name":"paused-for-cache","data":true}"#.utf8))
        == .propertyChange(name: "paused-for-cache", data: .bool(true)))
    #expect(
      MpvMessage.parse(Array(#"{"data":4.999979,"request_id":3,"error":"success"}"#.utf8))
        == .reply(requestID: 3, data: .number(4.999979), error: "success"))
    #expect(
      MpvMessage.parse(Array(#"{"event":"playback-restart"}"#.utf8)) == .event("playback-restart"))
    #expect(MpvMessage.parse(Array("not json".utf8)) == nil)
    let r = MpvRequest(
      id: 7, command: ["loadfile", .string("/a \"b\"\n.mp4"), .bool(true), .number(1.5)])
    #expect(r.line == #"{"command":["loadfile","/a \"b\"\n.mp4",true,1.5],"request_id":7}"# + "\n")
    // Whole numbers go as integers: mpv refuses `1.0` as an `observe_property` id.
    #expect(
      MpvRequest(id: 1, command: ["observe_property", .number(1), "pause"]).line
        == #"{"command":["observe_property",1,"pause"],"request_id":1}"# + "\n")
  }
}
