// Placeholder until the GroupSessions work lands.
