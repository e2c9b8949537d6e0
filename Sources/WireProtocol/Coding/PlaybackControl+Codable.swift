import PlaybackCoordination

extension PlaybackControl: WireStringEnum {
  public static let wireName = "playback control"
}
