import PlaybackCoordination

/// How people read which program a participant uses: Cowatch's own need no mark.
public enum OriginText {
  /// Appended to a name in the people pane, where names have a dozen columns: " ⇄" (the
  /// notice of their arrival says "from Syncplay" in words).
  public static func mark(_ origin: ParticipantOrigin) -> String {
    switch origin {
    case .cowatch: ""
    case .syncplay: " ⇄"
    }
  }

  /// The program's name, for machine-readable output ("cowatch", "syncplay").
  public static func name(_ origin: ParticipantOrigin) -> String { origin.rawValue }
}
