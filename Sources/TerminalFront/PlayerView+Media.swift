import Media
import PlaybackCoordination

extension PlayerView {
  /// What a simulated player shows, as the plain values the front draws.
  public init(_ s: Media.PlayerSnapshot, catalog: [SeriesInfo]) {
    let activity: Activity =
      switch s.state {
      case .idle: .idle
      case .loading, .starting, .seeking: .loading
      case .paused: .paused
      case .playing: .playing
      case .stalled: .stalled
      case .ended: .ended
      }
    let series = s.item.flatMap { id in catalog.first { $0.item(id) != nil } }
    self.init(
      item: s.item, itemTitle: s.title, seriesTitle: series?.title, position: s.position,
      duration: s.duration, rate: s.rate, activity: activity, subtitle: s.subtitle,
      testPattern: s.item == nil ? nil : s.frame)
  }
}
