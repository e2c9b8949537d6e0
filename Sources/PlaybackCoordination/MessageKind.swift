/// What a message between participants is: the relay routes messages by their kind, and
/// each front shows the kinds it knows (chat lines) and leaves the others to programs.
///
/// Open, like a MIME type: any short name is a kind; the ones Cowatch itself sends are
/// named here, so that none is spelt out where it is used.
public struct MessageKind: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral,
  CustomStringConvertible
{
  public var rawValue: String

  public init(rawValue: String) { self.rawValue = rawValue }
  public init(_ rawValue: String) { self.rawValue = rawValue }
  public init(stringLiteral rawValue: String) { self.rawValue = rawValue }

  public var description: String { rawValue }

  /// A line of chat, shown to the people it is for.
  public static let chat: MessageKind = "chat"
  /// A short reaction at a moment of the film (``Reaction``): its body is the text and the
  /// film time.
  public static let reaction: MessageKind = "reaction"
  /// The kinds that make up the room's conversation: sent to everyone, they are kept for
  /// people who enter later (the relay's backlog).
  public static let conversation: Set<MessageKind> = [.chat, .reaction]
  /// A payload sealed with the room's password: its own kind travels inside it.
  public static let sealed: MessageKind = "sealed"
  /// A payload sealed for its recipients only, with their own keys: its own kind travels
  /// inside it.
  public static let sealedPrivately: MessageKind = "private"
}
