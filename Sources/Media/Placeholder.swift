// Placeholder until the Media work lands.
