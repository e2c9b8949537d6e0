import Clocks
import Foundation
import GroupSessions
import Logging
import Media
import MpvPlayer
import Participation
import PlaybackCoordination

/// The catalog a participant picks items from, and the files behind it when it is the
/// person's own library.
struct LoadedMedia: Sendable {
  var catalog: Catalog
  /// The local file of each item (`--media`); empty for the built-in catalog.
  var paths: [ItemID: String] = [:]
  var series: [SeriesInfo] { catalog.seriesInfos() }
}

enum MediaSetup {
  /// Loads `--media DIR` (durations probed with ffprobe, cached), or else the default
  /// catalog (or `COWATCH_MEDIA`); a broken catalog or an unusable directory is one clear
  /// line and a non-zero exit. Files that cannot be used are named on `warn`.
  static func load(
    command: String, options: ParticipantOptions, warn: (String) -> Void
  ) throws(CommandFailure) -> LoadedMedia {
    guard let directory = options.media else {
      do {
        return LoadedMedia(catalog: try Catalog.loadDefault())
      } catch {
        throw CommandFailure(command, error.description)
      }
    }
    let probe = DurationProbe()
    guard probe.isAvailable else {
      throw CommandFailure(
        command, "--media needs ffprobe to read durations: install ffmpeg (apt-get install ffmpeg)")
    }
    do {
      let library = try MediaLibrary.scan(directory) { probe.duration(of: $0) }
      probe.save()
      for (path, reason) in library.skipped { warn("skipped \(path): \(reason)") }
      return LoadedMedia(catalog: library.catalog, paths: library.paths)
    } catch {
      throw CommandFailure(command, error.description)
    }
  }

  /// The player the options ask for: the simulated one, or mpv started now (an error if it
  /// cannot be).
  static func makePlayer(
    command: String, media: LoadedMedia, options: ParticipantOptions, clock: MonotonicClock
  ) async throws(CommandFailure) -> (
    player: any ShowablePlayer, stop: @Sendable () async -> Void, restart: PlayerRestart?,
    showText: (@Sendable (String, Double) -> Void)?, linkReader: LinkReader?
  ) {
    if options.player == "mpv" {
      let paths = media.paths
      var arguments = options.mpvArgs.split(separator: " ").map(String.init)
      let picture = try VideoPlacement.choose(
        command: command, options: options, environment: ProcessInfo.processInfo.environment)
      let choosesOutput = arguments.contains(where: { $0.hasPrefix("--vo") })
      var videoTerminal: String?
      var pane: VideoPane?
      switch picture {
      case .window: break
      case .none: if !choosesOutput { arguments.insert("--vo=null", at: 0) }
      case .terminal(let path, let opened):
        videoTerminal = path
        pane = opened
        if !choosesOutput { arguments.insert("--vo=tct", at: 0) }
      }
      let openedPane = pane
      do {
        let mpv = try await RestartableMpvPlayer.launch(
          arguments: arguments, resolver: { paths[$0] }, clock: clock,
          logger: Logger(label: "cowatch.mpv"), videoTerminal: videoTerminal)
        let restart = PlayerRestart(isNeeded: { mpv.hasQuit }) {
          do throws(MpvError) {
            try await mpv.restart()
            return nil
          } catch {
            return error.description
          }
        }
        return (
          ObservedPlayer(mpv, catalog: media.catalog),
          {
            await mpv.stop()
            openedPane?.close()
          }, restart, { text, seconds in mpv.showText(text, seconds: seconds) },
          LinkReader { link in
            do throws(MpvError) {
              return .success(try await MpvLinkProbe.probe(link))
            } catch {
              return .failure(LinkReadError(error.description))
            }
          }
        )
      } catch {
        pane?.close()
        throw CommandFailure(command, error.description)
      }
    }
    let latency = options.latencyMs / 1000
    let configuration = SimulatedPlayerConfiguration(
      driftPPM: options.driftPpm,
      loadLatency: max(0.2, latency)...max(0.2, latency),
      playLatency: latency...latency,
      seekLatency: latency...latency,
      seed: UInt64(truncatingIfNeeded: options.name.hashValue))
    return (
      SimulatedPlayer(catalog: media.catalog, configuration: configuration), {}, nil, nil, nil
    )
  }
}
