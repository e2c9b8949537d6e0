import Testing

@Test func placeholderGroupSessionsTests() {}
