import Foundation

/// Reads video files' durations with `ffprobe`, remembering them in a cache file (keyed by
/// path, size and modification time) so that a large library is probed once.
public final class DurationProbe: @unchecked Sendable {
  private let executable: String?
  private let cacheFile: String?
  private var cache: [String: Double]
  private var dirty = false
  private let lock = NSLock()

  /// `cacheFile` nil: no cache. `ffprobe` is looked up on PATH.
  public init(cacheFile: String? = DurationProbe.defaultCacheFile) {
    self.executable = Self.find("ffprobe")
    self.cacheFile = cacheFile
    if let cacheFile, let data = FileManager.default.contents(atPath: cacheFile),
      let decoded = try? JSONDecoder().decode([String: Double].self, from: data)
    {
      cache = decoded
    } else {
      cache = [:]
    }
  }

  /// `$XDG_CACHE_HOME/cowatch/durations.json` (or `~/.cache/…`).
  public static var defaultCacheFile: String? {
    let env = ProcessInfo.processInfo.environment
    let base =
      env["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? env["HOME"].map { "\($0)/.cache" }
    return base.map { "\($0)/cowatch/durations.json" }
  }

  /// True when ffprobe is installed.
  public var isAvailable: Bool { executable != nil }

  /// The file's duration in seconds, or nil if it cannot be read.
  public func duration(of path: String) -> Double? {
    let attributes = try? FileManager.default.attributesOfItem(atPath: path)
    let size = (attributes?[.size] as? NSNumber)?.int64Value ?? -1
    let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
    let key = "\(path)|\(size)|\(Int64(modified))"
    if let known = lock.withLock({ cache[key] }) { return known }
    guard let executable, let seconds = Self.probe(executable, path) else { return nil }
    lock.withLock {
      cache[key] = seconds
      dirty = true
    }
    return seconds
  }

  /// Writes the cache back, if anything was learned.
  public func save() {
    guard let cacheFile else { return }
    let snapshot = lock.withLock { dirty ? cache : nil }
    guard let snapshot, let data = try? JSONEncoder().encode(snapshot) else { return }
    let directory = (cacheFile as NSString).deletingLastPathComponent
    try? FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true)
    try? data.write(to: URL(fileURLWithPath: cacheFile), options: .atomic)
    lock.withLock { dirty = false }
  }

  private static func probe(_ executable: String, _ path: String) -> Double? {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = [
      "-v", "error", "-show_entries", "format=duration", "-of",
      "default=noprint_wrappers=1:nokey=1",
      path,
    ]
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    p.standardInput = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return nil }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0,
      let text = String(data: data, encoding: .utf8)?.trimmingCharacters(
        in: .whitespacesAndNewlines),
      let seconds = Double(text), seconds.isFinite, seconds > 0
    else { return nil }
    return seconds
  }

  private static func find(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(name)" }
      .first { FileManager.default.isExecutableFile(atPath: $0) }
  }
}
