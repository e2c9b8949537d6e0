// Placeholder until the TerminalFront work lands.
