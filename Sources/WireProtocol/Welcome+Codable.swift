import PlaybackCoordination

/// Wire format (protocol 2): an object with every stored property by name, all required
/// but `relays` (omitted when empty) and `keepsRooms` (omitted while false).
/// Written by hand so that the format is a decision; see docs/PROTOCOL.md.
extension Welcome: Codable {
  /// Most relays a welcome may list.
  public static let maximumRelays = 64

  private enum CodingKeys: String, CodingKey {
    case participant, room, resume, configuration, state, resumed, relayEpoch, relays, keepsRooms
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    participant = try c.decode(ParticipantID.self, forKey: .participant)
    room = try c.decode(String.self, forKey: .room)
    resume = try c.decode(ResumeToken.self, forKey: .resume)
    configuration = try c.decode(EngineConfiguration.self, forKey: .configuration)
    state = try c.decode(GroupState.self, forKey: .state)
    resumed = try c.decode(Bool.self, forKey: .resumed)
    relayEpoch = try c.decode(String.self, forKey: .relayEpoch)
    let relays = try c.decodeIfPresent([RelayEndpoint].self, forKey: .relays) ?? []
    guard relays.count <= Self.maximumRelays else {
      throw DecodingError.dataCorruptedError(
        forKey: .relays, in: c, debugDescription: "more than \(Self.maximumRelays) relays")
    }
    self.relays = relays
    keepsRooms = try c.decodeIfPresent(Bool.self, forKey: .keepsRooms) ?? false
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(participant, forKey: .participant)
    try c.encode(room, forKey: .room)
    try c.encode(resume, forKey: .resume)
    try c.encode(configuration, forKey: .configuration)
    try c.encode(state, forKey: .state)
    try c.encode(resumed, forKey: .resumed)
    try c.encode(relayEpoch, forKey: .relayEpoch)
    if !relays.isEmpty { try c.encode(relays, forKey: .relays) }
    if keepsRooms { try c.encode(keepsRooms, forKey: .keepsRooms) }
  }
}
