import PlaybackCoordination

extension PlaybackStatus: WireStringEnum {
  public static let wireName = "playback status"
}
