import Clocks
import Foundation
import PlaybackCoordination

/// Reads a link's title and duration with mpv before it is started or queued, so that the
/// group gets an item like any other (a duration to end at, a title to show). mpv opens
/// the link as it will to play it (and, with `extractor` — a site the person trusts —
/// asks yt-dlp, when installed), plays a hundredth of a second without picture or sound,
/// and prints both.
public enum MpvLinkProbe {
  /// The item for `link`: the link as its id, mpv's `media-title`, its `duration`.
  public static func probe(
    _ link: String, executable: String = "mpv", timeout: Double = 30, extractor: Bool = false,
    clock: any SessionClock = MonotonicClock()
  ) async throws(MpvError) -> ItemInfo {
    if let problem = LinkItem.problem(with: link) { throw .cannotOpenLink(link, why: problem) }
    let shown = String(link.prefix(80))
    guard let path = MpvPlayer.find(executable) else { throw .notInstalled(executable) }
    let marker = "COWATCH-LINK-PROBE"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = [
      "--vo=null", "--ao=null", "--end=0.01", "--pause=no", "--idle=no", "--force-window=no",
      "--input-terminal=no", "--ytdl=\(extractor ? "yes" : "no")",
      "--term-playing-msg=\(marker) ${=duration} ${media-title}", "--", link,
    ]
    let output = Pipe()
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    let printed: String
    do {
      printed = try await withThrowingTaskGroup(of: String?.self) { group in
        group.addTask { try await Self.run(process, reading: output) }
        group.addTask {
          await clock.sleep(seconds: timeout)
          try Task.checkCancellation()
          return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let text = first else {
          if process.isRunning { process.terminate() }
          throw MpvError.timedOut(what: shown, seconds: timeout)
        }
        return text
      }
    } catch let error as MpvError {
      throw error
    } catch {
      throw .cannotStart("\(path): \(error.localizedDescription)")
    }
    guard
      let line = printed.split(whereSeparator: \.isNewline).first(where: {
        $0.hasPrefix(marker + " ")
      })
    else {
      throw .cannotOpenLink(shown, why: "mpv could not open it (is it a video, and reachable?)")
    }
    let fields = line.dropFirst(marker.count + 1)
    let durationText = fields.prefix { $0 != " " }
    let title = fields.dropFirst(durationText.count + 1)
      .trimmingCharacters(in: .whitespaces)
    guard let duration = Double(durationText), duration.isFinite, duration > 0 else {
      throw .cannotOpenLink(
        shown, why: "it has no duration (a live stream cannot be watched in sync)")
    }
    let fallback = link.split(separator: "/").last.map(String.init) ?? LinkItem.host(of: link)
    return ItemInfo(
      id: ItemID(link), title: Self.fitted(title.isEmpty ? fallback : title),
      duration: duration)
  }

  /// A title within the engine's limits: no control characters, at most 256 bytes.
  static func fitted(_ title: String) -> String {
    var clean = String(
      String.UnicodeScalarView(title.unicodeScalars.filter { !DisplayText.isUnsafe($0) }))
    while clean.utf8.count > DisplayText.maximumTitleBytes { clean.removeLast() }
    return clean
  }

  /// Runs `process` to its end from a thread of its own (its output read there too, so
  /// that a full pipe never blocks it), with no signal blocked (see ``MpvPlayer``).
  private static func run(_ process: Process, reading output: Pipe) async throws -> String {
    let result: Result<String, any Error> = await withCheckedContinuation { continuation in
      Thread.detachNewThread {
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        do {
          try process.run()
        } catch {
          continuation.resume(returning: .failure(error))
          return
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        continuation.resume(returning: .success(String(decoding: data, as: UTF8.self)))
      }
    }
    return try result.get()
  }
}
