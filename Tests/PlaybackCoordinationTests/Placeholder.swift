import Testing

@Test func placeholderPlaybackCoordinationTests() {}
