import Clocks
import Foundation
import LinkConsent
import Logging
import Media
import MpvPlayer
import ParticipantRuntime
import Participation
import PlaybackCoordination
import RelayTLS

/// The catalog a participant picks items from, and the files behind it when it is the
/// person's own library.
struct LoadedMedia: Sendable {
  var catalog: Catalog
  /// The local file of each item (`--media`); empty for the built-in catalog.
  var paths: [ItemID: String] = [:]
  var series: [SeriesInfo] { catalog.seriesInfos() }
}

/// The player a participant runs, and what comes with it.
struct PreparedPlayer: Sendable {
  var player: any ShowablePlayer
  var stop: @Sendable () async -> Void
  var restart: PlayerRestart?
  var showText: (@Sendable (String, Double) -> Void)?
  /// Reads a link the person starts or queues (mpv); nil: this player cannot play links.
  var linkReader: LinkReader?
  /// Decides which links others start the player opens (mpv); nil: it opens none.
  var links: LinkGate?
}

enum MediaSetup {
  /// Loads `--media DIR` (durations probed with ffprobe, cached), or else the default
  /// catalog (or `COWATCH_MEDIA`); a broken catalog or an unusable directory is one clear
  /// line and a non-zero exit. Files that cannot be used are named on `warn`. mpv with no
  /// folder has nothing of its own: the person watches links, and steps away from items
  /// only others have.
  static func load(
    command: String, options: ParticipantOptions, warn: (String) -> Void
  ) throws(CommandFailure) -> LoadedMedia {
    guard let directory = options.media else {
      if options.player == "mpv" { return LoadedMedia(catalog: Catalog(series: [])) }
      do {
        return LoadedMedia(catalog: try Catalog.loadDefault())
      } catch {
        throw CommandFailure(command, error.description)
      }
    }
    let probe = DurationProbe()
    guard probe.isAvailable else {
      throw CommandFailure(
        command, "--media needs ffprobe to read durations: install ffmpeg (apt-get install ffmpeg)")
    }
    do {
      let library = try MediaLibrary.scan(directory) { probe.duration(of: $0) }
      probe.save()
      for (path, reason) in library.skipped { warn("skipped \(path): \(reason)") }
      return LoadedMedia(catalog: library.catalog, paths: library.paths)
    } catch {
      throw CommandFailure(command, error.description)
    }
  }

  /// The player the options ask for: the simulated one, or mpv started now (an error if it
  /// cannot be).
  static func makePlayer(
    command: String, media: LoadedMedia, options: ParticipantOptions, clock: MonotonicClock,
    lending: ItemLending? = nil, warn: (String) -> Void
  ) async throws(CommandFailure) -> PreparedPlayer {
    if options.player == "mpv" {
      let links = linkGate(options: options, clock: clock, warn: warn)
      let paths = media.paths
      var arguments = options.mpvArgs.split(separator: " ").map(String.init)
      let picture = try VideoPlacement.choose(
        command: command, options: options, environment: ProcessInfo.processInfo.environment)
      let choosesOutput = arguments.contains(where: { $0.hasPrefix("--vo") })
      var videoTerminal: String?
      var pane: VideoPane?
      switch picture {
      case .window: break
      case .none: if !choosesOutput { arguments.insert("--vo=null", at: 0) }
      case .terminal(let path, let opened):
        videoTerminal = path
        pane = opened
        if !choosesOutput { arguments.insert("--vo=tct", at: 0) }
      }
      let openedPane = pane
      do {
        let mpv = try await RestartableMpvPlayer.launch(
          // A borrowed item is read from the loopback copy of the lender's.
          arguments: arguments, resolver: { paths[$0] ?? lending?.borrowedURL($0) },
          fileOptions: { item in
            guard let lending, lending.borrowedURL(item) != nil else { return .init() }
            return MpvFileOptions(
              subtitles: lending.borrowedSubtitles(item), readAhead: ItemLending.readAhead)
          },
          extractor: { links.allowsExtractor($0) }, clock: clock,
          logger: Logger(label: "cowatch.mpv"), videoTerminal: videoTerminal)
        let restart = PlayerRestart(isNeeded: { mpv.hasQuit }) {
          do throws(MpvError) {
            try await mpv.restart()
            return nil
          } catch {
            return error.description
          }
        }
        return PreparedPlayer(
          player: ObservedPlayer(
            lending.map { BorrowingPlayer(ConsentingPlayer(mpv, gate: links), lending: $0) }
              ?? ConsentingPlayer(mpv, gate: links), catalog: media.catalog),
          stop: {
            await mpv.stop()
            openedPane?.close()
          }, restart: restart, showText: { text, seconds in mpv.showText(text, seconds: seconds) },
          linkReader: LinkReader { link in
            // One's own link is one's choice, but not one to this machine or its network
            // unless asked for: the others' players would refuse it anyway.
            if let refusal = await links.approveOwn(link) {
              return .failure(LinkReadError("cannot watch \(link.prefix(80)): \(refusal)"))
            }
            do throws(MpvError) {
              return .success(
                try await MpvLinkProbe.probe(link, extractor: links.allowsExtractor(link)))
            } catch {
              return .failure(LinkReadError(error.description))
            }
          }, links: links)
      } catch {
        pane?.close()
        throw CommandFailure(command, error.description)
      }
    }
    let latency = options.latencyMs / 1000
    let configuration = SimulatedPlayerConfiguration(
      driftPPM: options.driftPpm,
      loadLatency: max(0.2, latency)...max(0.2, latency),
      playLatency: latency...latency,
      seekLatency: latency...latency,
      seed: UInt64(truncatingIfNeeded: options.name.hashValue))
    return PreparedPlayer(
      player: SimulatedPlayer(catalog: media.catalog, configuration: configuration), stop: {})
  }

  /// This person's consent to links: their trusted sites (a file they may edit; its bad
  /// lines named on `warn`), `--trust-links`, `--allow-local-links`; the front asks about
  /// the rest, headless mode refuses them.
  static func linkGate(options: ParticipantOptions, clock: MonotonicClock, warn: (String) -> Void)
    -> LinkGate
  {
    let file = TrustedSitesFile(
      path: ((KnownRelays.defaultPath() as NSString).deletingLastPathComponent as NSString)
        .appendingPathComponent("trusted-sites"))
    let (sites, problems) = file.load()
    for problem in problems { warn(problem) }
    let settings = LinkConsent.Settings(
      trustsEveryLink: options.trustLinks, allowsLocalDestinations: options.allowLocalLinks,
      asks: !options.headless, sitesFile: file.path)
    return LinkGate(
      consent: LinkConsent(settings: settings, sites: sites),
      lookup: { host in await HostLookup.addresses(of: host, clock: clock) },
      save: { file.save($0) })
  }
}
