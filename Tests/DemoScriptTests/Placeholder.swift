import Testing

@Test func placeholderDemoScriptTests() {}
