import Foundation

/// A short video with sound (a test pattern and a tone) made with ffmpeg, for players that
/// need a real file.
public enum TestClip {
  /// Makes `path` (`seconds` long, 160×120 at 24 fps, AAC) unless it exists.
  public static func make(_ path: String, seconds: Double, tone: Int = 440) throws(HarnessError) {
    if FileManager.default.fileExists(atPath: path) { return }
    guard let ffmpeg = SyncplayClientProcess.executable("ffmpeg") else {
      throw HarnessError("ffmpeg is needed to make a test clip (apt-get install ffmpeg)")
    }
    let partial = path + ".partial.mp4"
    try HarnessError.run(
      ffmpeg,
      [
        "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
        "testsrc=size=160x120:rate=24", "-f", "lavfi", "-i",
        "sine=frequency=\(tone):sample_rate=48000", "-t", String(seconds), "-c:v", "libx264",
        "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", partial,
      ])
    do {
      try FileManager.default.moveItem(atPath: partial, toPath: path)
    } catch {
      throw HarnessError("cannot keep \(path): \(error.localizedDescription)")
    }
  }
}
