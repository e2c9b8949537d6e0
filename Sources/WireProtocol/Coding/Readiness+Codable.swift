import PlaybackCoordination

extension Readiness: WireStringEnum {
  public static let wireName = "readiness"
}
