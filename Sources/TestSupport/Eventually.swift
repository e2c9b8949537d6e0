import Testing

/// Waits, in real time, until `condition` holds, asking every few milliseconds; returns
/// whether it did within `seconds`. For what runs in real time (processes, sockets, real
/// players); what runs on virtual time is driven by it instead (`VirtualTime`).
///
/// It asks once more after the deadline: a test not scheduled for a while on a loaded
/// machine must not fail for what happened meanwhile.
public func eventually(
  _ seconds: Double = 5, poll: Duration = .milliseconds(5), _ condition: () async -> Bool
) async -> Bool {
  let clock = ContinuousClock()
  let deadline = clock.now.advanced(by: .milliseconds(Int64(seconds * 1000)))
  while clock.now < deadline {
    if await condition() { return true }
    try? await clock.sleep(for: poll)
  }
  return await condition()
}

/// ``eventually(_:poll:_:)``, recording an issue that names `what` when it never held.
public func eventually(
  _ what: String, within seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation,
  _ condition: () async -> Bool
) async {
  guard await eventually(seconds, condition) else {
    Issue.record(
      "timed out after \(seconds) s waiting for: \(what)", sourceLocation: sourceLocation)
    return
  }
}
