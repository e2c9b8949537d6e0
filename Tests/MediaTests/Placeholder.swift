import Testing

@Test func placeholderMediaTests() {}
