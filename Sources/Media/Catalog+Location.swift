import Foundation

extension Catalog {
  /// The environment variable that names the media directory (or the catalog file itself).
  public static let mediaEnvironmentVariable = "COWATCH_MEDIA"

  /// Finds the catalog to use when none is named:
  /// 1. `$COWATCH_MEDIA` (a directory holding `catalog.yaml`, or a catalog file) — if set,
  ///    nothing else is tried;
  /// 2. `Media/catalog.yaml` in the current directory or one of its parents;
  /// 3. `Media/catalog.yaml` beside the executable or in one of its parents (so
  ///    `.build/debug/cowatch` finds the repository's `Media/`);
  /// 4. the installed catalog, `../share/cowatch/Media/catalog.yaml` from the executable's
  ///    directory (`/usr/bin/cowatch` finds `/usr/share/cowatch/`, and a package unpacked
  ///    anywhere finds its own tree).
  public static func defaultCatalogPath(
    environment: [String: String] = ProcessInfo.processInfo.environment,
    currentDirectory: String = FileManager.default.currentDirectoryPath,
    executablePath: String? = Catalog.currentExecutablePath()
  ) throws(CatalogError) -> String {
    let files = FileManager.default
    func isFile(_ path: String) -> Bool {
      var isDirectory: ObjCBool = false
      return files.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }
    if let override = environment[mediaEnvironmentVariable], !override.isEmpty {
      let candidate =
        isFile(override) || override.hasSuffix(".yaml") || override.hasSuffix(".yml")
        ? override : (override as NSString).appendingPathComponent("catalog.yaml")
      guard isFile(candidate) else { throw CatalogError.catalogNotFound(searched: [candidate]) }
      return candidate
    }
    var searched: [String] = []
    var starts = [URL(fileURLWithPath: currentDirectory).standardizedFileURL]
    if let executablePath {
      starts.append(
        URL(fileURLWithPath: executablePath).resolvingSymlinksInPath().deletingLastPathComponent())
    }
    for start in starts {
      var directory = start
      while true {
        let candidate = directory.appendingPathComponent("Media").appendingPathComponent(
          "catalog.yaml"
        ).path
        if isFile(candidate) { return candidate }
        searched.append(candidate)
        let parent = directory.deletingLastPathComponent()
        if parent.path == directory.path || directory.path == "/" { break }
        directory = parent
      }
    }
    if let executablePath {
      let installed = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent(installedMediaPath)
        .appendingPathComponent("catalog.yaml").standardizedFileURL.path
      if isFile(installed) { return installed }
      searched.append(installed)
    }
    throw CatalogError.catalogNotFound(searched: searched)
  }

  /// Where an installed `cowatch` keeps the catalog, the demo script and the subtitles,
  /// from the directory of the executable (the Debian package's `/usr/share/cowatch/Media`).
  public static let installedMediaPath = "../share/cowatch/Media"

  /// The running executable, symlinks resolved, if it can be told.
  public static func currentExecutablePath() -> String? {
    if let path = Bundle.main.executablePath { return path }
    return CommandLine.arguments.first.flatMap { $0.isEmpty ? nil : $0 }
  }
}
