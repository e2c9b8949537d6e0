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
  /// The lender's address could not be connected to at all (another way, through the
  /// relay, may still reach it).
  public let unreachable: Bool
  public init(_ description: String, unreachable: Bool = false) {
    self.description = description
    self.unreachable = unreachable
  }
}
