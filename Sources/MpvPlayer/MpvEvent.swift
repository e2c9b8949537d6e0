/// An event mpv sends unasked, other than a property change or the end of a file.
public enum MpvEvent: Hashable, Sendable, ExpressibleByStringLiteral {
  /// A seek began: the driver's own, or the person's in mpv.
  case seek
  /// Playback starts again after a load or a seek: the picture is where it was sent.
  case playbackRestart
  /// Any other event, by name.
  case other(String)

  public init(name: String) {
    self =
      switch name {
      case "seek": .seek
      case "playback-restart": .playbackRestart
      default: .other(name)
      }
  }

  public init(stringLiteral name: String) { self.init(name: name) }
}
