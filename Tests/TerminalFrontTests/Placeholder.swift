import Testing

@Test func placeholderTerminalFrontTests() {}
