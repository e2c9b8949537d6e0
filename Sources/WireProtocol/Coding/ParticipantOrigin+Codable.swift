import PlaybackCoordination

extension ParticipantOrigin: WireStringEnum {
  public static let wireName = "participant origin"
}
