import Foundation
import ParticipantRuntime
import Participation
import PlaybackCoordination
import Rooms
import SyncplayHarness
import TestSupport
import Testing

/// Debian's Syncplay client (1.6.9, headless, with mpv) in a Cowatch room beside Cowatch
/// participants, through `cowatch serve --syncplay-port`'s server. Its mpv is read through
/// its IPC socket.
@Suite("Syncplay's own client in a Cowatch room", .serialized, .timeLimit(.minutes(4)))
struct SyncplayClientTests {
  /// mpv shows whole frames (24 fps here): a pause lands on the frame of its point.
  static let frame = 1.0 / 24 + 0.005

  @Test(
    "pauses, plays and seeks go both ways, attributed; chat both ways; speed and a file mismatch detach it"
  )
  func watchTogether() async throws {
    let room = try await SyncplayRoom()
    do {
      try await scenario(room)
    } catch {
      Issue.record("\(error)")
    }
    await room.stop()
  }

  func scenario(_ room: SyncplayRoom) async throws {
    let (sam, mpv) = try await room.syncplay("sam")
    // sam's file starts the room's session, named as a Cowatch library names the episode.
    #expect(
      await eventually(30) {
        room.state?.session?.item.id == "night-ferry/s1e3"
          && room.participant("sam")?.origin == .syncplay
          && room.participant("sam")?.isJoined == true
      }, "sam did not bring the room its file: \(String(describing: room.state))")
    let ann = try await room.cowatch("ann")
    let bob = try await room.cowatch("bob")
    await ann.send(.join)
    await bob.send(.join)
    await ann.play()
    #expect(await eventually(15) { mpv.bool("pause") == false }, "sam's mpv did not start")

    // A Cowatch pause: sam's mpv stops on the frame of the group's point.
    try await Task.sleep(nanoseconds: 1_500_000_000)
    await ann.pause()
    let point = room.state?.session?.timeline.itemTime ?? -1
    #expect(
      await eventually(10) {
        mpv.bool("pause") == true
          && abs((mpv.number("time-pos")?.value ?? -1) - point) <= Self.frame
      },
      "sam's mpv is at \(String(describing: mpv.number("time-pos"))) paused \(String(describing: mpv.bool("pause"))), the group paused at \(point)"
    )

    // sam pauses in Syncplay: everyone hears it was sam.
    await ann.play()
    #expect(await eventually(10) { mpv.bool("pause") == false })
    try await Task.sleep(nanoseconds: 1_500_000_000)
    sam.tell("p")
    #expect(
      await eventually(10) {
        room.state?.session?.status == .paused
          && room.state?.session?.lastPlaybackChange?.originatorName == "sam"
      }, "sam's pause did not reach the group")

    // bob seeks: sam's mpv goes there; sam seeks: the group goes there, by sam.
    await bob.seek(to: 60)
    #expect(
      await eventually(10) { abs((mpv.number("time-pos")?.value ?? -1) - 60) <= Self.frame },
      "sam's mpv did not follow bob's seek: \(String(describing: mpv.number("time-pos")))")
    sam.tell("s 1:30")
    #expect(
      await eventually(10) {
        room.state?.session.map { abs($0.timeline.itemTime - 90) < 1 } == true
          && room.state?.session?.lastPlaybackChange?.originatorName == "sam"
      }, "sam's seek did not reach the group")

    // Chat both ways.
    let heard = await ann.rawMessages(kind: "chat")
    var iterator = heard.makeAsyncIterator()
    await ann.sendMessage(kind: "chat", body: "hello sam")
    #expect(
      await eventually(10) { sam.log.contains("<ann> hello sam") }, "sam did not see ann's line")
    sam.tell("ch hi ann")
    let line = await iterator.next()
    #expect(line?.1 == "sam" && line?.2 == "hi ann")

    // Syncplay plays at 1× only: at 1.5× sam steps away, told why; back at 1×, back.
    await ann.play()
    await ann.setRate(1.5)
    #expect(
      await eventually(10) {
        room.participant("sam")?.suspensions.contains(.playerUnavailable) == true
          && mpv.bool("pause") == true
      }, "sam was not detached at 1.5×")
    #expect(await eventually(5) { sam.log.contains("plays at 1× only") })
    await ann.setRate(1)
    #expect(
      await eventually(10) {
        room.participant("sam")?.suspensions.isEmpty == true && mpv.bool("pause") == false
      }, "sam did not come back at 1×")

    // The series as Syncplay's shared playlist: sam picks the next episode there, which
    // switches everyone (attributed to sam); sam does not have it, so sam steps away, told
    // which one it lacks.
    let mine = try #require(room.state?.session?.item)
    let next = ItemInfo(id: "night-ferry/s1e4", title: "Oban", duration: 1500)
    let series = SeriesInfo(id: "night-ferry", title: "Night Ferry", items: [mine, next])
    await ann.send(.start(series: series, item: mine.id))
    #expect(
      await eventually(15) {
        room.state?.session?.series.items.count == 2
          && room.participant("sam")?.isJoined == true
          && room.participant("sam")?.suspensions.isEmpty == true
      }, "sam did not follow the new session of its own episode")
    try await Task.sleep(nanoseconds: 1_000_000_000)
    sam.tell("qs 2")
    #expect(
      await eventually(15) {
        room.state?.session?.item.id == next.id
          && room.state?.session?.lastPlaybackChange?.originatorName == "sam"
      }, "sam's choice in its playlist did not switch the group: \(sam.log.suffix(1500))")
    #expect(
      await eventually(15) {
        room.participant("sam")?.suspensions.contains(.playerUnavailable) == true
      }, "sam was not detached from an episode it does not have")
    #expect(
      await eventually(5) { sam.log.contains("you don't have Night Ferry · Oban") },
      "sam was not told what it lacks")
  }

  @Test("a Syncplay client that leaves is gone from the room; back, it is in again with its name")
  func leavesAndComesBack() async throws {
    let room = try await SyncplayRoom()
    do {
      let ann = try await room.cowatch("ann")
      _ = ann
      let (first, _) = try await room.syncplay("sam")
      #expect(await eventually(30) { room.participant("sam")?.isJoined == true })
      await room.end(first)
      #expect(await eventually(10) { room.participant("sam") == nil }, "sam stayed after leaving")
      let (again, mpv) = try await room.syncplay("sam")
      #expect(
        await eventually(30) {
          room.participant("sam")?.isJoined == true && room.participant("sam")?.origin == .syncplay
        }, "sam did not come back")
      #expect(
        await eventually(10) { mpv.number("duration") != nil }, "its file is not open: \(again.log)"
      )
    } catch {
      Issue.record("\(error)")
    }
    await room.stop()
  }

  @Test(
    "a room's password is Syncplay's server password: the right one enters and reads sealed chat, a wrong one is refused in words"
  )
  func password() async throws {
    let room = try await SyncplayRoom()
    do {
      let ann = try await room.cowatch("ann", room: "movie-night", password: "secret")
      let (sam, _) = try await room.syncplay("sam", room: "movie-night", password: "secret")
      #expect(
        await eventually(30) { room.participant("sam", room: "movie-night")?.origin == .syncplay },
        "sam did not enter with the room's password: \(sam.log)")
      await ann.sendMessage(kind: "chat", body: "sealed hello")
      #expect(await eventually(10) { sam.log.contains("<ann> sealed hello") }, "\(sam.log)")
      let (eve, _) = try await room.syncplay("eve", room: "movie-night", password: "guess")
      #expect(
        await eventually(30) { eve.log.contains("wrong password for room movie-night") },
        "eve was not told: \(eve.log)")
      #expect(room.participant("eve", room: "movie-night") == nil)
    } catch {
      Issue.record("\(error)")
    }
    await room.stop()
  }

  @Test("STARTTLS with the relay's certificate: Syncplay's client upgrades and watches as before")
  func startTLS() async throws {
    let directory = SyncplayRoom.makeDirectory()
    let authority = try await blocking { try TestCertificateAuthority(in: directory) }
    let room = try await SyncplayRoom(tls: authority, directory: directory)
    do {
      let (sam, _) = try await room.syncplay("sam")
      #expect(
        await eventually(30) { room.participant("sam")?.isJoined == true },
        "sam did not get in over TLS: \(sam.log)")
      #expect(!sam.log.contains("does not support TLS"), "\(sam.log)")
      #expect(sam.log.contains("Secure connection established"), "\(sam.log)")
    } catch {
      Issue.record("\(error)")
    }
    await room.stop()
  }

  @Test(
    "the group waits for a Cowatch participant that stalls (Syncplay sees them not ready) and goes on without them when the wait times out"
  )
  func waits() async throws {
    var configuration = RelayConfiguration()
    configuration.engine.suspensionWaitTimeout = 3
    let room = try await SyncplayRoom(configuration: configuration)
    do {
      let (sam, mpv) = try await room.syncplay("sam")
      #expect(await eventually(30) { room.participant("sam")?.isJoined == true })
      let bob = try await room.cowatch("bob")
      await bob.send(.join)
      await bob.play()
      #expect(await eventually(15) { mpv.bool("pause") == false }, "sam's mpv did not start")
      // Its reports give its offset from the group, shown like anyone's.
      #expect(
        await eventually(15) {
          room.participant("sam")?.playerOffset.map { abs($0) < 0.2 } == true
        }, "no offset for sam: \(String(describing: room.participant("sam")))")
      await bob.send(.beginSuspension(.stallRecovery))
      #expect(
        await eventually(5) {
          room.state?.session?.status == .waiting && mpv.bool("pause") == true
        },
        "the group did not wait for bob, or sam's player went on")
      #expect(
        await eventually(5) { sam.log.contains("bob") && sam.log.contains("stalled") },
        "sam was not told why the group waits: \(sam.log)")
      // Never stuck: after the wait's timeout the group goes on, and so does sam's player.
      #expect(
        await eventually(10) {
          room.state?.session?.status == .playing && mpv.bool("pause") == false
        },
        "the group did not go on without bob")
    } catch {
      Issue.record("\(error)")
    }
    await room.stop()
  }
}
