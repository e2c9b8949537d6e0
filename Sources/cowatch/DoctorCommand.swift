import ArgumentParser
import Doctor
import Foundation

/// `cowatch doctor`: what a watch night needs of this machine, checked before the evening
/// rather than found out during it, one error at a time.
struct DoctorCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "doctor",
    abstract:
      "Check what a watch night needs of this machine: mpv, yt-dlp, the terminal, the router, a port.",
    discussion:
      "Each line is ok, warning or problem, with what to do. The exit status is non-zero only when there is a problem."
  )

  @Flag(help: "One JSON object per check and line: check, status, summary, advice.")
  var json = false
  @Option(
    help: ArgumentHelp(
      "Ask mpv to play the first video in this directory (default: a test picture it makes).",
      valueName: "DIR"))
  var media: String?
  @Option(help: "The port cowatch host would listen on.") var port = 7700
  @Flag(help: "Do not ask the home router for its outside address.") var noRouter = false

  func validate() throws {
    guard (1...65535).contains(port) else { throw ValidationError("--port must be 1–65535") }
    if let media {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: media, isDirectory: &isDirectory),
        isDirectory.boolValue
      else { throw ValidationError("--media \(media) is not a directory") }
    }
  }

  func run() async throws {
    var options = MachineSurvey.Options(stateDirectory: StatePaths.directory())
    options.media = media
    options.port = port
    options.askRouter = !noRouter
    let findings = Checkup.findings(await MachineSurvey(options: options).facts())
    if json {
      for line in DoctorReport.jsonLines(findings) { Console.line(line) }
    } else {
      Console.line(DoctorReport.text(findings))
    }
    let status = Checkup.exitStatus(findings)
    if status != 0 { throw ExitCode(status) }
  }
}
