import GroupSessions
import Participation
import Transports
import Media
import PlaybackCoordination

/// The catalog a participant picks items from, and what its simulated player plays.
struct LoadedMedia: Sendable {
  var catalog: Catalog
  var series: [SeriesInfo] { catalog.seriesInfos() }
}

enum MediaSetup {
  /// Loads the default catalog (or `COWATCH_MEDIA`); a broken catalog is one clear line
  /// naming the file and line, and a non-zero exit.
  static func load(command: String) throws(CommandFailure) -> LoadedMedia {
    do {
      return LoadedMedia(catalog: try Catalog.loadDefault())
    } catch {
      throw CommandFailure(command, error.description)
    }
  }

  static func makePlayer(media: LoadedMedia, options: ParticipantOptions) -> SimulatedPlayer {
    let latency = options.latencyMs / 1000
    let configuration = SimulatedPlayerConfiguration(
      driftPPM: options.driftPpm,
      loadLatency: max(0.2, latency)...max(0.2, latency),
      playLatency: latency...latency,
      seekLatency: latency...latency,
      seed: UInt64(truncatingIfNeeded: options.name.hashValue))
    return SimulatedPlayer(catalog: media.catalog, configuration: configuration)
  }
}
