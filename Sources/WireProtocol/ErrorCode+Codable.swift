import PlaybackCoordination

extension ErrorCode: WireStringEnum {
  public static let wireName = "error code"
}
