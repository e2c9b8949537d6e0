// Placeholder until the Rooms work lands.
