// Placeholder until the WireProtocol work lands.
