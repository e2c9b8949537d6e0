import Foundation
import Testing

/// `scripts/package.sh` on this run's debug build (the release package itself is checked by
/// `scripts/package.sh --check`, which takes a release build): the Debian package's tree and
/// control file, the tarball of the same tree, and `cowatch demo` run from the unpacked tree
/// outside the repository, where only the installed catalog can be found.
@Suite struct PackageLayoutTests {
  @Test(
    "the Debian package and the tarball hold the binary, the catalog, completions, man pages and the unit"
  )
  func layout() async throws {
    let out = CowatchProcess.runDirectory + "/package-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: out) }
    let built = try await ScriptRun.run(
      "scripts/package.sh", ["--fast", "--from", CowatchProcess.executable.path, "--out", out],
      bin: CowatchProcess.executable.deletingLastPathComponent(), within: 120)
    #expect(built.status == 0, "\(built.text)")
    let version = try run("/bin/sh", ["-c", "'\(CowatchProcess.executable.path)' --version"])
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let arch = try run("/usr/bin/dpkg", ["--print-architecture"])
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let deb = "\(out)/cowatch_\(version)_\(arch).deb"
    let tarball = "\(out)/cowatch-\(version)-linux-\(arch).tar.gz"

    // The control file.
    let control = try run("/usr/bin/dpkg-deb", ["-f", deb])
    let fields = Dictionary(
      control.split(separator: "\n").compactMap { line -> (String, String)? in
        guard !line.hasPrefix(" "), let colon = line.firstIndex(of: ":") else { return nil }
        return (
          String(line[..<colon]),
          line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        )
      }, uniquingKeysWith: { a, _ in a })
    #expect(fields["Package"] == "cowatch")
    #expect(fields["Version"] == version)
    #expect(fields["Architecture"] == arch)
    let depends = fields["Depends", default: ""]
    for library in ["libncursesw6", "libsqlite3-0", "libminiupnpc", "libnatpmp1", "libc6"] {
      #expect(depends.contains(library), "Depends: \(depends)")
    }
    #expect(!depends.contains("swift"), "Depends: \(depends)")
    #expect(fields["Recommends"]?.contains("mpv") == true)
    #expect(fields["Recommends"]?.contains("yt-dlp") == true)
    #expect(fields["Description"]?.isEmpty == false)

    // The tree: the same in both.
    let listed = try run("/usr/bin/dpkg-deb", ["-c", deb]).split(separator: "\n")
      .compactMap { $0.split(separator: " ").last.map { String($0.dropFirst(2)) } }
      .filter { !$0.isEmpty && !$0.hasSuffix("/") }
    let files = Set(listed)
    let inTarball = Set(
      try run("/bin/tar", ["-tzf", tarball]).split(separator: "\n").map(String.init)
        .filter { !$0.hasSuffix("/") })
    #expect(files == inTarball)
    var expected: Set<String> = [
      "usr/bin/cowatch",
      "usr/share/cowatch/Media/catalog.yaml", "usr/share/cowatch/Media/demo.cowatch",
      "usr/share/bash-completion/completions/cowatch",
      "usr/share/zsh/vendor-completions/_cowatch",
      "usr/share/fish/vendor_completions.d/cowatch.fish",
      "usr/share/man/man1/cowatch.1.gz",
      "usr/lib/systemd/system/cowatch-relay.service",
      "usr/share/doc/cowatch/README.md",
    ]
    for command in ["serve", "host", "join", "nearby", "demo", "doctor"] {
      expected.insert("usr/share/man/man1/cowatch-\(command).1.gz")
    }
    let subtitles = CowatchProcess.repositoryRoot.appendingPathComponent("Media/subtitles")
    for case let file as String in FileManager.default.enumerator(atPath: subtitles.path)!
    where file.hasSuffix(".srt") {
      expected.insert("usr/share/cowatch/Media/subtitles/\(file)")
    }
    #expect(expected.subtracting(files).isEmpty, "missing: \(expected.subtracting(files).sorted())")
    // Nothing of the repository's own beyond what a user needs.
    #expect(!files.contains { $0.contains("Media/tools") || $0.hasSuffix(".swift") })

    // Unpacked, from a folder that is no checkout: the installed catalog is found, the
    // unit runs the packaged binary, the completion script completes cowatch.
    let root = out + "/root"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    _ = try run("/usr/bin/dpkg-deb", ["-x", deb, root])
    let unit = try String(
      contentsOfFile: root + "/usr/lib/systemd/system/cowatch-relay.service", encoding: .utf8)
    #expect(unit.contains("ExecStart=/usr/bin/cowatch serve"))
    #expect(!unit.contains("/usr/local/bin"))
    let bash = try String(
      contentsOfFile: root + "/usr/share/bash-completion/completions/cowatch", encoding: .utf8)
    #expect(bash.contains("complete") && bash.contains("cowatch"))
    let demo = try run(
      root + "/usr/bin/cowatch", ["demo", "--plain", "--speed", "20"], in: root,
      environment: ["PATH": "/usr/bin:/bin", "HOME": root, "TERM": "dumb"])
    #expect(demo.contains("expectations held"), "\(demo.suffix(800))")
  }

  /// Runs `executable` to its end and returns what it printed; a failure is an error with
  /// its output.
  private func run(
    _ executable: String, _ arguments: [String], in directory: String? = nil,
    environment: [String: String]? = nil
  ) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    if let environment { process.environment = environment }
    let out = Pipe()
    process.standardOutput = out
    process.standardError = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0 else {
      throw Failure(description: "\(executable) \(arguments.joined(separator: " ")): \(text)")
    }
    return text
  }

  struct Failure: Error, CustomStringConvertible { let description: String }
}
