import GroupSessions

/// Runs the interactive terminal front for a participant.
enum FrontRun {
  static func run(command: String, client: ParticipantClient, media: LoadedMedia, invite: String?) async {
    await client.stop()
    CommandFailure.exit(command, "the terminal front is not built yet; use --headless")
  }
}
