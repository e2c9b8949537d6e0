// Placeholder until the Relay work lands.
