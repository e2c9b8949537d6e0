import CRouterPorts
import Clocks
import Foundation
import Synchronization

/// Keeps the relay's port forwarded by the home router while the room runs: asks (UPnP-IGD,
/// then NAT-PMP), tells what came of it, renews, and removes the mapping when stopped. The
/// libraries block, so each call runs on a thread of its own, bounded in time.
public final class RouterPortForwarding: Sendable {
  private let port: Int
  private let lease: Int
  private let mapped = Mutex<(MappedPort, UPnPGateway?)?>(nil)
  private let loop = Mutex<Task<Void, Never>?>(nil)

  /// How long each way of asking waits for a router.
  public static let patience = 2000
  /// The lifetime asked for by default: an hour, renewed halfway.
  public static let defaultLease = 3600

  private init(port: Int, lease: Int) {
    self.port = port
    self.lease = lease
  }

  /// Starts asking at once; `outcome` is told the first answer, and again whenever a
  /// renewal finds things changed (the mapping lost, or back).
  public static func start(
    port: Int, lease: Int = defaultLease, clock: any SessionClock = MonotonicClock(),
    outcome: @escaping @Sendable (PortMappingOutcome) -> Void
  ) -> RouterPortForwarding {
    let forwarding = RouterPortForwarding(port: port, lease: lease)
    forwarding.loop.withLock {
      $0 = Task {
        var result = await forwarding.ask()
        // Stopped while the router was being asked: nothing to tell (stop removes it).
        guard !Task.isCancelled else { return }
        outcome(result.outcome)
        // Only a mapping made once is kept up: renewed halfway through its life; lost (the
        // router restarted, say), asked for again each minute, each change told.
        guard case .mapped = result.outcome else { return }
        while !Task.isCancelled {
          let wait: Duration
          if case .mapped(let current) = result.outcome {
            wait = current.renewalDelay
          } else {
            wait = .seconds(60)
          }
          await clock.sleep(for: wait)
          guard !Task.isCancelled else { break }
          let before = result.outcome
          result = await forwarding.ask(renewing: result.gateway)
          guard !Task.isCancelled else { break }
          if !result.outcome.reachesTheSame(as: before) { outcome(result.outcome) }
        }
      }
    }
    return forwarding
  }

  /// Stops renewing and removes the mapping (waiting at most a few seconds for the router).
  public func stop() async {
    let task = loop.withLock { task in
      defer { task = nil }
      return task
    }
    task?.cancel()
    await task?.value
    guard
      let (port, gateway) = mapped.withLock({ held in
        defer { held = nil }
        return held
      })
    else {
      return
    }
    let ownPort = self.port
    await Self.onThread {
      switch port.method {
      case .upnp:
        _ = gateway.map { cw_upnp_delete($0.pointer, Int32(port.publicPort), Int32(ownPort)) }
      case .natpmp: Self.natpmpRemove(port: ownPort)
      }
    }
  }

  /// Asks the router: UPnP first (most home routers), then NAT-PMP.
  private func ask(renewing gateway: UPnPGateway? = nil) async -> (
    outcome: PortMappingOutcome, gateway: UPnPGateway?
  ) {
    let port = self.port
    let lease = self.lease
    let attempt = await Self.onThread { () -> (PortMappingOutcome, UPnPGateway?) in
      var reasons: [String] = []
      let upnp = gateway ?? UPnPGateway.discover(delay: Self.patience, reasons: &reasons)
      if let upnp {
        // Judged before asking: a port is forwarded only for an address that can be given.
        // A router that says it is not connected itself has a private outside address, or
        // none (miniupnpd says 0.0.0.0), or one that is no address at all.
        switch OutsideAddress.judge(upnp.outsideAddress(), method: .upnp) {
        case .privateOutside(let address):
          return (.privateOutside(address: address, method: .upnp), nil)
        case .unusable(let why): reasons.append(why)
        case .usable:
          switch upnp.forward(port: port, lease: lease) {
          case .success(let mapped):
            let outcome = Self.checked(mapped)
            if case .mapped = outcome { return (outcome, upnp) }
            // The router changed its word between the two questions: ours is removed.
            _ = cw_upnp_delete(upnp.pointer, Int32(mapped.publicPort), Int32(port))
            return (outcome, nil)
          case .failure(let reason): reasons.append(reason.description)
          }
        }
      }
      switch Self.natpmpForward(port: port, lease: lease) {
      case .success(let mapped):
        let outcome = Self.checked(mapped)
        if case .mapped = outcome { return (outcome, nil) }
        Self.natpmpRemove(port: port)
        return (outcome, nil)
      case .failure(.privateOutside(let address)):
        return (.privateOutside(address: address, method: .natpmp), nil)
      case .failure(.reason(let reason)): reasons.append(reason)
      }
      return (.noRouter(reasons), nil)
    }
    mapped.withLock { held in
      if case .mapped(let port) = attempt.0 { held = (port, attempt.1) } else { held = nil }
    }
    return attempt
  }

  /// Asks the router only what its outside address is, mapping nothing (`cowatch doctor`):
  /// UPnP first, then NAT-PMP, each waiting ``patience`` at most. Nil address: the router
  /// answered without one.
  public static func outsideAddress() async -> Result<
    (method: PortMappingMethod, address: String?), RouterSilence
  > {
    await onThread {
      var reasons: [String] = []
      if let upnp = UPnPGateway.discover(delay: patience, reasons: &reasons) {
        let outside = upnp.outsideAddress()
        return .success((.upnp, outside == "0.0.0.0" ? nil : outside))
      }
      var address = [CChar](repeating: 0, count: 16)
      let known = cw_natpmp_external_address(Int32(patience), &address)
      if known == 0 { return .success((.natpmp, text(address))) }
      reasons.append("NAT-PMP: \(String(cString: cw_natpmp_error(known)))")
      return .failure(RouterSilence(reasons: reasons))
    }
  }

  /// A mapping whose outside address is private forwards nothing the internet can reach;
  /// one whose address or port is not one is not taken at all (it would go into a link).
  private static func checked(_ mapped: MappedPort) -> PortMappingOutcome {
    guard (1...65535).contains(mapped.publicPort) else {
      return .noRouter([
        "\(mapped.method): the router's answer is not a port friends could use (\(mapped.publicPort)): not taken"
      ])
    }
    switch OutsideAddress.judge(mapped.publicAddress, method: mapped.method) {
    case .usable: return .mapped(mapped)
    case .privateOutside(let address):
      return .privateOutside(address: address, method: mapped.method)
    case .unusable(let why): return .noRouter([why])
    }
  }

  /// Why NAT-PMP forwarded nothing.
  private enum NatpmpRefusal: Error {
    case privateOutside(String?)
    case reason(String)
  }

  private static func natpmpForward(port: Int, lease: Int) -> Result<MappedPort, NatpmpRefusal> {
    var address = [CChar](repeating: 0, count: 16)
    let known = cw_natpmp_external_address(Int32(patience), &address)
    guard known == 0 else {
      return .failure(.reason("NAT-PMP: \(String(cString: cw_natpmp_error(known)))"))
    }
    switch OutsideAddress.judge(Self.text(address), method: .natpmp) {
    case .usable: break
    case .privateOutside(let outside): return .failure(.privateOutside(outside))
    case .unusable(let why): return .failure(.reason(why))
    }
    var publicPort = Int32(0)
    var lifetime = Int32(0)
    let result = cw_natpmp_map(
      Int32(port), Int32(port), Int32(lease), Int32(patience), &publicPort, &lifetime)
    guard result == 0 else {
      return .failure(.reason("NAT-PMP: \(String(cString: cw_natpmp_error(result)))"))
    }
    return .success(
      MappedPort(
        method: .natpmp, publicAddress: Self.text(address), publicPort: Int(publicPort),
        lifetime: Int(lifetime)))
  }

  /// Removes this machine's NAT-PMP mapping of `port`: a lifetime of 0 does (RFC 6886 §3.4),
  /// and a NAT-PMP router keeps mappings per client, so only ours goes.
  private static func natpmpRemove(port: Int) {
    var public_ = Int32(0)
    var lifetime = Int32(0)
    _ = cw_natpmp_map(Int32(port), 0, 0, Int32(Self.patience), &public_, &lifetime)
  }

  /// A C string the libraries wrote into `buffer`.
  static func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      Thread.detachNewThread { continuation.resume(returning: body()) }
    }
  }

  /// No router answered, with what each way of asking found.
  public struct RouterSilence: Error, Hashable, Sendable {
    public var reasons: [String]
  }

  struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
  }
}

/// An Internet gateway device found with UPnP, kept for renewing and removing the mapping.
/// Used from one thread at a time (the forwarding's calls are sequential).
final class UPnPGateway: @unchecked Sendable {
  let pointer: OpaquePointer

  private init(pointer: OpaquePointer) { self.pointer = pointer }
  deinit { cw_upnp_free(pointer) }

  /// Whether the router said it is connected to the internet.
  private(set) var connected = true

  static func discover(delay: Int, reasons: inout [String]) -> UPnPGateway? {
    var status = Int32(0)
    guard let pointer = cw_upnp_discover(Int32(delay), &status) else {
      switch status {
      case 3: reasons.append("UPnP: a device answered, but it is not a router")
      default: reasons.append("UPnP: no router answered")
      }
      return nil
    }
    let gateway = UPnPGateway(pointer: pointer)
    gateway.connected = status == 1
    return gateway
  }

  /// The router's outside address, if it tells one.
  func outsideAddress() -> String? {
    var address = [CChar](repeating: 0, count: 64)
    guard cw_upnp_external_address(pointer, &address) == 0 else { return nil }
    let text = RouterPortForwarding.text(address)
    return text.isEmpty ? nil : text
  }

  func forward(port: Int, lease: Int) -> Result<MappedPort, RouterPortForwarding.Failure> {
    var address = [CChar](repeating: 0, count: 64)
    let known = cw_upnp_external_address(pointer, &address)
    guard known == 0 else {
      return .failure(.init("UPnP: \(String(cString: cw_upnp_error(known)))"))
    }
    guard connected else {
      return .failure(.init("UPnP: the router says it is not connected to the internet"))
    }
    let lan = String(cString: cw_upnp_lan_address(pointer)!)
    let granted = lease
    let result = cw_upnp_add(pointer, Int32(port), Int32(port), lan, Int32(lease), "Cowatch")
    // 725 OnlyPermanentLeasesSupported: older routers take only mappings without an end,
    // which would outlive the room (and a crash): not asked for; NAT-PMP is tried next.
    if result == 725 {
      return .failure(
        .init(
          "UPnP: the router only takes port mappings that never end, which would stay open after the room: not asked for"
        ))
    }
    guard result == 0 else {
      return .failure(.init("UPnP: \(String(cString: cw_upnp_error(result)))"))
    }
    return .success(
      MappedPort(
        method: .upnp, publicAddress: RouterPortForwarding.text(address), publicPort: port,
        lifetime: granted))
  }
}
