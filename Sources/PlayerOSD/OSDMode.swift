/// What of the group a player's on-screen display shows: everything including chat (the
/// default), the group's changes and waits without chat, or nothing.
public enum OSDMode: String, CaseIterable, Hashable, Sendable {
  case chat
  case changes
  case none
}
