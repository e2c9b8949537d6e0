import Testing

@Test func placeholderRoomsTests() {}
