// swift-tools-version: 6.1
import PackageDescription

// Dependencies point from the edges (cowatch, Relay, TerminalFront, DemoScript) to the
// pure centre (PlaybackCoordination). See docs/ARCHITECTURE.md.
let package = Package(
  name: "Cowatch",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "cowatch", targets: ["cowatch"]),
    .executable(name: "cowatch-bench", targets: ["cowatch-bench"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
    .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
  ],
  targets: [
    // The pure centre: timeline, group state machine, policies, clock-offset estimation,
    // participant-side coordinator. No I/O, no clock reads.
    .target(name: "PlaybackCoordination"),
    // The words people read and type about a room ("bob paused at 12:34", "/tell bob hi"),
    // shared by every edge that shows or reads them.
    .target(name: "Narration", dependencies: ["PlaybackCoordination"]),
    // Messages exchanged between participants and the relay, and their line codec. Pure.
    .target(name: "WireProtocol", dependencies: ["PlaybackCoordination"]),
    // Room passwords: the slow key derivation, the entry proof the relay checks, and the
    // sealing of messages the relay only routes. Pure computation over swift-crypto.
    .target(
      name: "RoomCrypto",
      dependencies: [
        "PlaybackCoordination",
        "WireProtocol",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "_CryptoExtras", package: "swift-crypto"),
      ]),
    // The relay's logic: rooms, sequencing through the engine, limits, heartbeats. Pure.
    .target(name: "Rooms", dependencies: ["PlaybackCoordination", "WireProtocol"]),
    // The clocks every runtime reads (monotonic, wall, offset, and a manual one for
    // virtual time), behind one protocol so that the pure centre never reads a clock.
    .target(name: "Clocks", dependencies: ["PlaybackCoordination"]),
    // The Transport protocol: how a participant reaches its relay, in memory or over TCP.
    .target(name: "Transports", dependencies: ["WireProtocol"]),
    // The participant's protocol logic as a state machine (ParticipantCore). Pure.
    .target(
      name: "Participation",
      dependencies: [
        "PlaybackCoordination", "Narration", "WireProtocol", "Transports", "RoomCrypto",
      ]),
    // The relay's one runtime for every transport: runs Rooms, one outlet policy, one tick
    // loop; and the in-memory relay built on it.
    .target(
      name: "RelayRuntime",
      dependencies: [
        "Clocks",
        "PlaybackCoordination", "WireProtocol", "Rooms", "Transports", "RoomCrypto",
        .product(name: "Logging", package: "swift-log"),
      ]),
    // The room store in one SQLite file (GRDB over Debian's libsqlite3).
    .target(
      name: "SQLiteRoomStore",
      dependencies: [
        "PlaybackCoordination", "Rooms", "WireProtocol",
        .product(name: "GRDB", package: "GRDB.swift"),
      ]),
    // The room store in PostgreSQL, for relays that keep their rooms in a database.
    .target(
      name: "PostgresRoomStore",
      dependencies: [
        "Clocks", "PlaybackCoordination", "Rooms", "WireProtocol",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // A throwaway PostgreSQL server (initdb + pg_ctl in a temporary directory) for the tests
    // and benchmarks of the PostgreSQL store.
    .target(name: "ThrowawayPostgres"),
    // A tmux server on a private socket, to drive the front as a person would (the front's
    // end-to-end tests and benchmark).
    .target(name: "TmuxDriver"),
    // Syncplay's own client run headless with its mpv, and a reader of that mpv's IPC
    // socket: for the tests and benchmarks that put Cowatch beside the real thing.
    .target(name: "SyncplayHarness"),
    // What a player's on-screen display shows of the group (changes, waits, chat), as a
    // pure feed of the participant's events. Pure.
    .target(
      name: "PlayerOSD", dependencies: ["PlaybackCoordination", "Participation", "Narration"]),
    // The participant runtime: the client actor that performs ParticipantCore's effects.
    // Whether this person's player opens a link someone else started: trusted sites,
    // answers, links to one's own network (pure; ParticipantRuntime performs its lookups).
    .target(name: "LinkConsent", dependencies: ["PlaybackCoordination"]),
    // What a room remembers across nights on each member's machine (the item, the position,
    // the queue, who was there), its file and when a participant writes it.
    .target(name: "WatchNights", dependencies: ["PlaybackCoordination"]),
    .target(
      name: "ParticipantRuntime",
      dependencies: [
        "Clocks", "PlayerOSD", "LinkConsent",
        "PlaybackCoordination", "WireProtocol", "Participation", "Transports", "Narration",
        "RoomCrypto", "Lending", "LendingEndpoint", "WatchNights",
        .product(name: "Logging", package: "swift-log"),
      ]),
    // Headless mode: one action a line in (the words scripts share), one JSON line out per
    // change, and the performer that turns actions into the client's requests.
    .target(
      name: "HeadlessFront",
      dependencies: [
        "Clocks", "ParticipantRuntime", "Participation", "PlaybackCoordination", "Narration",
        "WireProtocol", "WatchNights",
      ]),
    // TLS for relay connections: the relay's certificate (made once, self-signed, unless
    // given), fingerprints, and how participants decide to trust a relay (pinned, CA,
    // known, asked once).
    .target(
      name: "RelayTLS",
      dependencies: [
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "X509", package: "swift-certificates"),
        .product(name: "SwiftASN1", package: "swift-asn1"),
        .product(name: "Crypto", package: "swift-crypto"),
      ]),
    // Newline-framed byte streams with a size limit: the framer, and its SwiftNIO handler
    // shared by the relay's TCP and Syncplay ports, the TCP client and the mpv socket.
    .target(
      name: "LineFraming", dependencies: [.product(name: "NIOCore", package: "swift-nio")]),
    // The TCP relay server.
    .target(
      name: "TCPRelayServer",
      dependencies: [
        "Clocks",
        "PlaybackCoordination", "Rooms", "RelayRuntime", "LineFraming", "WireProtocol",
        "RelayTLS", .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOTLS", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // Lending an item to members who have no copy: the pure part (which bytes a request
    // asks for) and the loopback endpoint a borrower's player reads the item from.
    .target(name: "Lending"),
    .target(
      name: "LendingEndpoint",
      dependencies: [
        "Clocks", "Lending", "RelayTLS",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
      ]),
    // A relay's metrics for Prometheus, over HTTP (`cowatch serve --metrics`).
    .target(
      name: "RelayMetrics",
      dependencies: [
        "RelayRuntime", "WireProtocol",
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ]),
    .testTarget(
      name: "RelayMetricsTests",
      dependencies: [
        "TestSupport",
        "RelayMetrics", "RelayRuntime", "TCPRelayServer", "ParticipantRuntime", "Participation",
        "TCPRelayClient", "RelayTLS",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ]),
    // The TCP client transport.
    .target(
      name: "TCPRelayClient",
      dependencies: [
        "WireProtocol", "LineFraming", "Transports", "RelayTLS",
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "NIOTLS", package: "swift-nio"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ]),
    // Catalog, subtitles, simulated player.
    .target(
      name: "Media",
      dependencies: ["PlaybackCoordination", .product(name: "Yams", package: "Yams")]),
    // A real player: mpv, started by Cowatch and driven over its JSON IPC socket.
    .target(
      name: "MpvPlayer",
      dependencies: [
        "Clocks",
        "PlaybackCoordination", "LineFraming", .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // Syncplay's wire protocol (JSON lines, CRLF): typed messages, checked on the way in.
    .target(name: "SyncplayProtocol"),
    // A Syncplay client as a Cowatch participant: a pure state machine that turns its
    // lines into requests and the coordinator's player commands into its forced states.
    .target(
      name: "SyncplayBridge",
      dependencies: [
        "PlaybackCoordination", "Participation", "Narration", "SyncplayProtocol", "Media",
      ]),
    // The relay's Syncplay port (SwiftNIO): each client becomes a participant of the same
    // relay runtime, through an in-process transport.
    .target(
      name: "SyncplayServer",
      dependencies: [
        "Clocks",
        "SyncplayBridge", "SyncplayProtocol", "ParticipantRuntime", "Participation", "RelayRuntime",
        "PlaybackCoordination", "LineFraming", "RoomCrypto", "Rooms",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // ncursesw with wide characters; links ncursesw and tinfo (see module.modulemap).
    .systemLibrary(name: "CNcurses", providers: [.apt(["libncurses-dev"])]),
    // Screen model drawn into a cell grid; ncurses only blits it.
    .target(
      name: "TerminalFront",
      dependencies: [
        "PlaybackCoordination", "Media", "CNcurses", "Narration", "LinkConsent",
      ]),
    // The front's session loop: a pure reducer (keys, client events, ticks → requests,
    // player commands, draws) and a thin runner that performs its effects.
    .target(
      name: "FrontSessions",
      dependencies: [
        "Clocks", "LinkConsent",
        "ParticipantRuntime", "Invites", "Participation", "TerminalFront", "Media", "Narration",
        "PlaybackCoordination", "WireProtocol", "WatchNights",
      ]),
    .target(
      name: "DemoScript",
      dependencies: [
        "HeadlessFront",
        "Clocks",
        "PlaybackCoordination", "ParticipantRuntime", "Participation", "Transports", "RelayRuntime",
        "TCPRelayServer", "TCPRelayClient", "Media",
        "TerminalFront", "Narration", "Rooms",
        .product(name: "Logging", package: "swift-log"),
      ]),
    // A relay as `cowatch serve` runs it: its store opened and rooms restored, its TCP and
    // Syncplay ports, a clean stop.
    .target(
      name: "ServedRelay",
      dependencies: [
        "Clocks", "PostgresRoomStore", "RelayRuntime", "Rooms", "SQLiteRoomStore",
        "SyncplayServer", "TCPRelayServer", "WireProtocol",
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
      ]),
    .executableTarget(
      name: "cowatch",
      dependencies: [
        "ServedRelay", "Invites", "RelayMetrics", "NearbyRooms", "NearbyDiscovery",
        "RouterPortMapping", "Doctor",
        "HeadlessFront",
        "Clocks",
        "PlaybackCoordination", "WireProtocol", "Rooms", "ParticipantRuntime", "Participation",
        "Transports", "RelayRuntime", "TCPRelayServer", "TCPRelayClient", "Media", "TerminalFront",
        "FrontSessions", "DemoScript", "Narration", "MpvPlayer",
        "RoomCrypto", "RoomCarrying", "PlayerOSD", "LinkConsent", "LendingEndpoint",
        "PostgresRoomStore", "WatchNights", "SQLiteRoomStore",
        "RelayTLS", .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    .executableTarget(
      name: "cowatch-bench",
      dependencies: [
        "RoomCarrying",
        "Clocks",
        "PlaybackCoordination", "WireProtocol", "Rooms", "ParticipantRuntime", "Participation",
        "Transports", "RelayRuntime", "TCPRelayServer",
        "TCPRelayClient", "Media", "MpvPlayer", "SQLiteRoomStore",
        "RelayTLS", "PostgresRoomStore", "ThrowawayPostgres", "TmuxDriver", "SyncplayHarness",
        "SyncplayServer", "RoomsTesting", "RelayMetrics", "RoomCrypto", "LendingEndpoint",
        "WatchNights",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
      ]),
    // Test support, kept out of the production modules: a room store in memory (that
    // can be told to fail).
    // A participant's own relay, ready to carry its room when the room's relay goes.
    .target(
      name: "RoomCarrying",
      dependencies: [
        "Clocks",
        "ParticipantRuntime", "Participation", "PlaybackCoordination", "Rooms",
        "TCPRelayServer", "Transports", "WireProtocol",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
      ]),
    // Test support for every test target: waiting in real time for what runs in real
    // time (`eventually`).
    .target(name: "TestSupport"),
    .target(
      name: "RoomsTesting",
      dependencies: ["PlaybackCoordination", "Rooms", "RoomCrypto", "WireProtocol"]),
    // Rooms nearby: DNS-SD over multicast DNS, the small part of RFC 6762/6763 it takes
    // (the message codec, a responder and a browser as state machines). Pure.
    .target(name: "NearbyRooms", dependencies: ["Invites", "PlaybackCoordination", "WireProtocol"]),
    // The multicast DNS socket (SwiftNIO, port 5353 shared) that advertises and finds them.
    .target(
      name: "NearbyDiscovery",
      dependencies: [
        "NearbyRooms", "Clocks",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ]),
    .testTarget(name: "NearbyRoomsTests", dependencies: ["NearbyRooms", "Invites"]),
    // The home router asked to forward a port: miniupnpc (UPnP-IGD) and libnatpmp (NAT-PMP)
    // behind a few plain C calls (Debian's libminiupnpc-dev and libnatpmp-dev).
    .target(
      name: "CRouterPorts",
      linkerSettings: [.linkedLibrary("miniupnpc"), .linkedLibrary("natpmp")]),
    // Keeping the relay's port forwarded while a room runs, and saying what came of it.
    .target(name: "RouterPortMapping", dependencies: ["CRouterPorts", "Clocks"]),
    // `cowatch doctor`: what a watch night needs of this machine. The facts are gathered
    // (MachineSurvey: mpv playing a second, the router asked, a port tried) and judged
    // (Checkup, pure) apart, so that every judgement is tested without the machine.
    .target(
      name: "Doctor",
      dependencies: [
        "Clocks", "Media", "MpvPlayer", "PlaybackCoordination", "RelayTLS", "RouterPortMapping",
        .product(name: "Logging", package: "swift-log"),
      ]),
    .testTarget(name: "DoctorTests", dependencies: ["Doctor"]),
    .testTarget(
      name: "LendingTests",
      dependencies: [
        "TestSupport",
        "Clocks", "Lending", "LendingEndpoint", "RelayTLS",
        .product(name: "NIOCore", package: "swift-nio"),
        // The relayed path: a real relay's tunnels, dialled as a member's process does.
        "Rooms", "RelayRuntime", "TCPRelayServer", "TCPRelayClient", "Transports", "WireProtocol",
        "PlaybackCoordination",
      ]),
    .testTarget(name: "RouterPortMappingTests", dependencies: ["RouterPortMapping"]),
    // Invite links: one word that carries a room's addresses, name and certificate.
    .target(name: "Invites", dependencies: ["WireProtocol"]),
    .testTarget(name: "InvitesTests", dependencies: ["Invites", "WireProtocol"]),
    .testTarget(name: "LinkConsentTests", dependencies: ["LinkConsent"]),
    .testTarget(
      name: "ServedRelayTests",
      dependencies: ["ServedRelay", "ParticipantRuntime", "Participation", "TCPRelayClient"]),
    .testTarget(
      name: "PlaybackCoordinationTests", dependencies: ["PlaybackCoordination", "WireProtocol"]),
    // What the repository's documents say about the package itself (the module table).
    .testTarget(name: "RepositoryTests"),
    .testTarget(name: "WatchNightsTests", dependencies: ["WatchNights", "PlaybackCoordination"]),
    .testTarget(
      name: "WireProtocolTests",
      dependencies: ["LineFraming", "WireProtocol", "PlaybackCoordination"]),
    .testTarget(
      name: "LineFramingTests",
      dependencies: [
        "LineFraming", .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
      ]),
    .testTarget(
      name: "RoomCryptoTests", dependencies: ["RoomCrypto", "WireProtocol", "PlaybackCoordination"]),
    .testTarget(name: "RelayTLSTests", dependencies: ["RelayTLS"]),
    .testTarget(
      name: "RoomsTests",
      dependencies: [
        "TestSupport",
        "RoomsTesting",
        "LineFraming", "Clocks",
        "Rooms", "WireProtocol", "PlaybackCoordination", "RelayRuntime", "SQLiteRoomStore",
        "RoomCrypto", "PostgresRoomStore", "ThrowawayPostgres",
        // The shared-rooms tests run relays and participants over TCP.
        "ParticipantRuntime", "Participation", "TCPRelayServer", "TCPRelayClient", "RelayTLS",
        .product(name: "Logging", package: "swift-log"),
      ]),
    .testTarget(
      name: "ParticipationTests",
      dependencies: [
        "RoomsTesting",
        "Clocks",
        "Participation", "PlaybackCoordination", "WireProtocol", "Rooms", "RelayRuntime",
        "RoomCrypto",
      ]),
    .testTarget(
      name: "RoomCarryingTests",
      dependencies: [
        "TestSupport",
        "RoomCarrying", "ParticipantRuntime", "Participation", "PlaybackCoordination",
        "Rooms", "RoomsTesting", "TCPRelayClient", "TCPRelayServer", "WireProtocol",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
      ]),
    .testTarget(
      name: "ParticipantRuntimeTests",
      dependencies: [
        "TestSupport",
        "HeadlessFront", "LinkConsent",
        "Clocks",
        "ParticipantRuntime", "Participation", "Transports", "RelayRuntime", "TCPRelayServer",
        "TCPRelayClient", "Rooms", "WireProtocol", "Media", "PlaybackCoordination",
        "RoomCrypto", "Narration",
        "RelayTLS", "RoomsTesting", "LendingEndpoint", "WatchNights",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
      ]),
    .testTarget(name: "MediaTests", dependencies: ["Media", "PlaybackCoordination"]),
    .testTarget(
      name: "PlayerOSDTests",
      dependencies: ["PlayerOSD", "Participation", "PlaybackCoordination", "Narration"]),
    .testTarget(
      name: "MpvPlayerTests",
      dependencies: [
        "TestSupport",
        "Clocks",
        "MpvPlayer", "PlaybackCoordination", "ParticipantRuntime", "Participation", "RelayRuntime",
        "SyncplayHarness", "LendingEndpoint", "PlayerOSD", "Transports", "Media", "Narration",
        "LinkConsent",
      ],
      // A fake mpv (a script the tests start as mpv), not a resource.
      exclude: ["Fixtures"]),
    // Screen snapshots live in __Snapshots__ (COWATCH_RECORD_SNAPSHOTS=1 re-records them).
    .testTarget(
      name: "TerminalFrontTests",
      dependencies: ["TerminalFront", "Narration", "PlaybackCoordination"],
      exclude: ["__Snapshots__"]),
    .testTarget(
      name: "FrontSessionsTests",
      dependencies: [
        "FrontSessions", "ParticipantRuntime", "Participation", "TerminalFront", "Media",
        "PlaybackCoordination", "Invites", "WireProtocol", "LinkConsent",
      ]),
    .testTarget(
      name: "DemoScriptTests",
      dependencies: [
        "DemoScript", "Media", "ParticipantRuntime", "Participation", "PlaybackCoordination",
      ]),
    .testTarget(
      name: "CLITests",
      dependencies: [
        "TestSupport",
        "TmuxDriver", "SyncplayHarness", "ParticipantRuntime", "Invites", "TCPRelayClient",
        "RelayTLS",
      ]),
    .testTarget(
      name: "SyncplayTests",
      dependencies: [
        "TestSupport",
        "Clocks",
        "SyncplayProtocol", "SyncplayBridge", "SyncplayServer", "Participation",
        "PlaybackCoordination", "RelayRuntime", "ParticipantRuntime", "Rooms",
        "SyncplayHarness", "RoomCrypto", "RelayTLS", "LineFraming",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]),
  ],
  swiftLanguageModes: [.v6]
)
