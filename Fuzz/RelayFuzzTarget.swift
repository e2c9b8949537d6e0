// libFuzzer target: the wire decoders and the relay's core, fed what the fuzzer invents.
// Built by scripts/fuzz.sh together with the sources of PlaybackCoordination, WireProtocol
// and Rooms as one module (their imports of each other removed), so it needs no package
// build. Any trap, overflow or failed precondition is a finding.

/// Three connections to one relay core; each input line goes to one of them (by its
/// length), the clock moves on a little between lines, and the core ticks as the runtime
/// would. Lines that decode as server messages are decoded too (a hostile relay).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  var framer = LineFramer(maximumFrameBytes: 4096, emitsEmptyLines: true)
  framer.append(bytes)
  var configuration = RelayConfiguration()
  configuration.maximumPendingMessages = 4
  configuration.requestWindow = 8
  var core = RelayCore(configuration: configuration, epoch: "fuzz", makeSecret: { "s" })
  var now = GroupInstant(seconds: 1_000)
  let codec = WireCodec()
  for c in 1...3 as ClosedRange<UInt64> { _ = core.connected(ConnectionID(c), at: now) }
  var lines = 0
  while lines < 200, let line = try? framer.nextFrame() {
    lines += 1
    let connection = ConnectionID(UInt64(line.count % 3 + 1))
    now = now.advanced(bySeconds: Double(line.count % 11) * 0.7)
    _ = try? codec.decodeServer(line)
    do throws(WireError) {
      let message = try codec.decodeClient(line)
      _ = core.received(message, from: connection, at: now)
    } catch {
      _ = core.receivedInvalid(error, from: connection, at: now)
      _ = core.connected(connection, at: now)
    }
    _ = core.tick(at: now)
    _ = core.nextDeadline(after: now)
    for name in core.roomNames {
      if let state = core.state(ofRoom: name) { _ = codec.encode(ServerMessage.update(state: state, events: [])) }
    }
  }
  // Let every wait and item end fall due.
  for _ in 0..<5 {
    now = now.advanced(bySeconds: 3_600)
    _ = core.tick(at: now)
  }
  return 0
}
