import GroupSessions
import PlaybackCoordination

/// Loads the catalog and makes the simulated player for a participant.
struct LoadedMedia: Sendable {
  var series: [SeriesInfo]
}

enum MediaSetup {
  static func load(command: String) -> LoadedMedia {
    LoadedMedia(series: [])
  }

  static func makePlayer(media: LoadedMedia, options: ParticipantOptions) -> (any PlayerDriver)? {
    nil
  }
}
