/// A line grew past the framer's limit before its newline came: the stream is unusable,
/// and whoever reads it answers with an error and closes it.
public struct FrameTooLarge: Error, Hashable, Sendable, CustomStringConvertible {
  public let limit: Int

  public init(limit: Int) { self.limit = limit }

  public var description: String { "frame longer than \(limit) bytes" }
}
