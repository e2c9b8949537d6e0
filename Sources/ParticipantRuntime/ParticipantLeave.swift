/// How a participant leaves when its person quits, in place of the plain goodbye: a host,
/// whose process runs the room's relay, passes the room on to a successor ("only me"), or
/// closes it (`endedForEveryone`). It stops the client itself.
public typealias ParticipantLeave =
  @Sendable (_ client: ParticipantClient, _ endedForEveryone: Bool) async -> Void
