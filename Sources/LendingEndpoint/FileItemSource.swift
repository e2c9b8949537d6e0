import Foundation
import NIOCore
import NIOPosix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One file's bytes, read with `pread` on NIO's thread pool (never on the cooperative one).
/// Opened once: a file renamed or deleted under it is still the one opened; a file that
/// shrinks reads short, which the endpoint reports as an error instead of sending less.
public final class FileItemSource: ItemSource {
  public let size: Int64
  private let descriptor: CInt

  /// Opens `path` for reading; a missing or unreadable file, or a directory, is one error.
  public init(path: String) throws(ItemSourceError) {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      throw ItemSourceError("cannot open \(path): \(String(cString: strerror(errno)))")
    }
    var info = stat()
    guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
      close(fd)
      throw ItemSourceError("\(path) is not a file")
    }
    descriptor = fd
    size = Int64(info.st_size)
  }

  deinit { close(descriptor) }

  /// The external subtitle files mpv would load beside the video at `path` by itself
  /// (`sub-auto=exact`): the video's name with a subtitle extension, or with a language
  /// between (`Name.en.srt`); the one without a language first, then by name; none
  /// larger than ``maximumSubtitleBytes``, at most `limit`. Their paths and names.
  public static func subtitles(besides path: String, limit: Int = 8) -> [(
    path: String, name: String
  )] {
    let url = URL(fileURLWithPath: path)
    let base = url.deletingPathExtension().lastPathComponent
    let folder = url.deletingLastPathComponent()
    guard
      let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
    else { return [] }
    let found = names.compactMap { name -> (rank: Int, name: String, extension: String)? in
      let ext = (name as NSString).pathExtension.lowercased()
      guard subtitleExtensions.contains(ext), name.hasPrefix(base + ".") else { return nil }
      let middle = name.dropFirst(base.count + 1).dropLast(ext.count + 1)
      // Nothing between, or one language tag.
      guard middle.isEmpty || (!middle.contains(".") && middle.count <= 12) else { return nil }
      return (middle.isEmpty ? 0 : 1, name, ext)
    }.sorted { ($0.rank, $0.name) < ($1.rank, $1.name) }
    let fitting = found.compactMap { candidate -> (path: String, name: String)? in
      let full = folder.appendingPathComponent(candidate.name).path
      let size = (try? FileManager.default.attributesOfItem(atPath: full)[.size] as? Int) ?? nil
      guard let size, size <= maximumSubtitleBytes else { return nil }
      return (full, candidate.name)
    }
    return Array(fitting.prefix(limit))
  }

  /// Text subtitle formats mpv reads.
  public static let subtitleExtensions: Set<String> = ["srt", "ass", "ssa", "vtt", "sub"]
  /// A subtitle file is text: a few hundred kilobytes for a film; larger is not lent.
  public static let maximumSubtitleBytes = 4 << 20

  public func read(from offset: Int64, maximum: Int) async throws -> ByteBuffer {
    let fd = descriptor
    let wanted = Int(min(Int64(maximum), max(0, size - offset)))
    return try await NIOThreadPool.singleton.runIfActive {
      var buffer = ByteBufferAllocator().buffer(capacity: wanted)
      var read = 0
      _ = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: wanted) { raw in
        read = pread(fd, raw.baseAddress, wanted, off_t(offset))
        return max(0, read)
      }
      guard read == wanted else {
        throw ItemSourceError("the file changed under it: \(read) bytes where \(wanted) were")
      }
      return buffer
    }
  }
}

/// Why an item's bytes cannot be read.
public struct ItemSourceError: Error, CustomStringConvertible, Sendable {
  public let description: String
  /// The connection closed before a byte of the answer came: a request that may be sent
  /// again on a fresh connection (an idle one the other side let go just then).
  public let unanswered: Bool
  /// The lender's address could not be connected to at all (another way, through the
  /// relay, may still reach it).
  public let unreachable: Bool
  public init(_ description: String, unanswered: Bool = false, unreachable: Bool = false) {
    self.description = description
    self.unanswered = unanswered
    self.unreachable = unreachable
  }
}
