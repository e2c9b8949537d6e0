// Placeholder until the DemoScript work lands.
