import Testing

@Test func placeholderWireProtocolTests() {}
