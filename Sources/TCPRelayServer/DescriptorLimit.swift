#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The process's open-file limit, which bounds a relay's connections: a relay that runs
/// out of descriptors cannot even refuse a connection in words (and libdispatch aborts the
/// process when it cannot open a file it needs). So the process raises its limit to the
/// hard one at start, and a relay holds at most what the limit leaves after a reserve
/// for everything else the process opens (logs, mpv's socket, its database, the checks of
/// offered relays).
public enum DescriptorLimit {
  /// Raises the soft limit to the hard limit; returns the soft limit now.
  @discardableResult
  public static func raiseToHardLimit() -> Int {
    var limit = rlimit()
    guard getrlimit(resource, &limit) == 0 else { return 1024 }
    if limit.rlim_cur < limit.rlim_max {
      var raised = limit
      raised.rlim_cur = limit.rlim_max
      _ = setrlimit(resource, &raised)
    }
    return current
  }

  /// The soft limit now.
  public static var current: Int {
    var limit = rlimit()
    guard getrlimit(resource, &limit) == 0 else { return 1024 }
    return Int(clamping: limit.rlim_cur)
  }

  /// Connections a relay holds at most under a limit of `limit` descriptors: an eighth of
  /// them, and at least 64, kept for everything else.
  public static func connections(under limit: Int) -> Int {
    max(8, limit - max(64, limit / 8))
  }

  #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
  #else
    private static let resource = RLIMIT_NOFILE
  #endif
}
