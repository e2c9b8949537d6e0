/// How many terminal columns a character takes, as terminals (and glibc's `wcwidth`) see it:
/// 0 for combining marks and other zero-width characters, 2 for East Asian wide and
/// full-width characters and emoji with emoji presentation, 1 otherwise.
///
/// A compact table of the common ranges rather than the whole Unicode database; ambiguous
/// characters (box drawing, `•`, `▶`) count as 1, as in every non-CJK locale.
public enum CharacterWidth {
  /// The width of a grapheme cluster: that of its first scalar of non-zero width. An emoji
  /// presentation selector (U+FE0F) makes a narrow symbol wide, as terminals draw it.
  public static func of(_ character: Character) -> Int {
    var width = 0
    for scalar in character.unicodeScalars {
      if width == 0 {
        width = of(scalar)
      } else if scalar.value == 0xFE0F, width == 1 {
        return 2
      }
    }
    return width
  }

  /// What of a grapheme cluster is sent to the terminal, so that it takes exactly the
  /// cluster's width there: its first scalar and the marks that combine with it (accents,
  /// the emoji presentation selector). Terminals disagree on the rest — a zero-width joiner
  /// (👨‍👩‍👧 drawn as one glyph, or as three, or joined to the next cell's character), a skin
  /// tone (a wide character to glibc and ncurses), a flag's second letter — and one that
  /// draws more columns than the grid counted shifts every border after it on that row. So
  /// a family shows as its first person, 👍🏽 as 👍, a flag as its first letter; the text
  /// itself (chat, names) is kept whole everywhere else.
  public static func drawn(_ character: Character) -> [Unicode.Scalar] {
    var scalars: [Unicode.Scalar] = []
    for scalar in character.unicodeScalars {
      if scalars.isEmpty {
        scalars.append(scalar)
        continue
      }
      let v = scalar.value
      // A joiner starts another glyph; tones and tags are not marks to ncurses.
      if v == 0x200D { break }
      if (0x1F3FB...0x1F3FF).contains(v) || (0xE0000...0xE0FFF).contains(v) { continue }
      guard of(scalar) == 0 else { break }
      scalars.append(scalar)
    }
    return scalars
  }

  /// The width of one scalar; control characters count as 0.
  public static func of(_ scalar: Unicode.Scalar) -> Int {
    let v = scalar.value
    if v < 0x20 || (v >= 0x7F && v < 0xA0) { return 0 }
    if v < 0x300 { return 1 }
    if contains(zeroWidth, v) { return 0 }
    if v < 0x1100 { return 1 }
    return contains(wide, v) ? 2 : 1
  }

  /// The columns a string takes.
  public static func of(_ text: some StringProtocol) -> Int {
    var total = 0
    for c in text { total += of(c) }
    return total
  }

  private static func contains(_ table: [ClosedRange<UInt32>], _ v: UInt32) -> Bool {
    var lo = 0
    var hi = table.count - 1
    while lo <= hi {
      let mid = (lo + hi) / 2
      if v < table[mid].lowerBound {
        hi = mid - 1
      } else if v > table[mid].upperBound {
        lo = mid + 1
      } else {
        return true
      }
    }
    return false
  }

  /// Combining marks, zero-width spaces and joiners, variation selectors. Sorted.
  private static let zeroWidth: [ClosedRange<UInt32>] = [
    0x0300...0x036F, 0x0483...0x0489, 0x0591...0x05BD, 0x05BF...0x05BF, 0x05C1...0x05C2,
    0x05C4...0x05C5, 0x05C7...0x05C7, 0x0610...0x061A, 0x064B...0x065F, 0x0670...0x0670,
    0x06D6...0x06DC, 0x06DF...0x06E4, 0x06E7...0x06E8, 0x06EA...0x06ED, 0x0900...0x0902,
    0x093A...0x093A, 0x093C...0x093C, 0x0941...0x0948, 0x094D...0x094D, 0x0951...0x0957,
    0x0E31...0x0E31, 0x0E34...0x0E3A, 0x0E47...0x0E4E, 0x1160...0x11FF, 0x1AB0...0x1AFF,
    0x1DC0...0x1DFF, 0x200B...0x200F, 0x2028...0x202E, 0x2060...0x2064, 0x20D0...0x20FF,
    0x302A...0x302D, 0x3099...0x309A, 0xFE00...0xFE0F, 0xFE20...0xFE2F, 0xFEFF...0xFEFF,
    0x1F3FB...0x1F3FF, 0xE0000...0xE0FFF,
  ]

  /// East Asian Wide and Fullwidth, and emoji with emoji presentation. Sorted.
  private static let wide: [ClosedRange<UInt32>] = [
    0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0,
    0x23F3...0x23F3, 0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F...0x267F,
    0x2693...0x2693, 0x26A1...0x26A1, 0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5,
    0x26CE...0x26CE, 0x26D4...0x26D4, 0x26EA...0x26EA, 0x26F2...0x26F3, 0x26F5...0x26F5,
    0x26FA...0x26FA, 0x26FD...0x26FD, 0x2705...0x2705, 0x270A...0x270B, 0x2728...0x2728,
    0x274C...0x274C, 0x274E...0x274E, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797,
    0x27B0...0x27B0, 0x27BF...0x27BF, 0x2B1B...0x2B1C, 0x2B50...0x2B50, 0x2B55...0x2B55,
    0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
    0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
    0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,
    0x1F004...0x1F004, 0x1F0CF...0x1F0CF, 0x1F18E...0x1F18E, 0x1F191...0x1F19A,
    0x1F200...0x1F202, 0x1F210...0x1F23B, 0x1F240...0x1F248, 0x1F250...0x1F251,
    0x1F260...0x1F265, 0x1F300...0x1F320, 0x1F32D...0x1F335, 0x1F337...0x1F37C,
    0x1F37E...0x1F393, 0x1F3A0...0x1F3CA, 0x1F3CF...0x1F3D3, 0x1F3E0...0x1F3F0,
    0x1F3F4...0x1F3F4, 0x1F3F8...0x1F3FA, 0x1F400...0x1F43E, 0x1F440...0x1F440,
    0x1F442...0x1F4FC, 0x1F4FF...0x1F53D, 0x1F54B...0x1F54E, 0x1F550...0x1F567,
    0x1F57A...0x1F57A, 0x1F595...0x1F596, 0x1F5A4...0x1F5A4, 0x1F5FB...0x1F64F,
    0x1F680...0x1F6C5, 0x1F6CC...0x1F6CC, 0x1F6D0...0x1F6D2, 0x1F6D5...0x1F6D7,
    0x1F6DC...0x1F6DF, 0x1F6EB...0x1F6EC, 0x1F6F4...0x1F6FC, 0x1F7E0...0x1F7EB,
    0x1F7F0...0x1F7F0, 0x1F90C...0x1F93A, 0x1F93C...0x1F945, 0x1F947...0x1F9FF,
    0x1FA70...0x1FAFF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
  ]
}
