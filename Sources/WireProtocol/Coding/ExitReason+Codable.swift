import PlaybackCoordination

extension ExitReason: WireStringEnum {
  public static let wireName = "exit reason"
}
