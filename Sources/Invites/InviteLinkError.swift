/// Why a text is not a Cowatch link, said so that the person can fix or ask again.
public struct InviteLinkError: Error, Hashable, Sendable, CustomStringConvertible {
  public let reason: String
  init(_ reason: String) { self.reason = reason }
  public var description: String { "not a whole Cowatch link: \(reason)" }
}
