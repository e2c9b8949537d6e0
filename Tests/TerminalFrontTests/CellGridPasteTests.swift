import Testing

@testable import TerminalFront

@Suite("Cell grid composition")
struct CellGridPasteTests {
  @Test("a grid pasted into another lands at its offset and is clipped")
  func paste() {
    var small = CellGrid(rows: 2, cols: 4)
    small.write("ab", row: 0, col: 0)
    small.write("漢x", row: 1, col: 0)
    var big = CellGrid(rows: 3, cols: 6)
    big.paste(small, row: 1, col: 3)
    #expect(big.lines == ["", "   ab", "   漢x"], "lines are read without trailing blanks")
    var edge = CellGrid(rows: 1, cols: 4)
    var wide = CellGrid(rows: 1, cols: 2)
    wide.write("漢", row: 0, col: 0)
    edge.paste(wide, row: 0, col: 3)
    #expect(edge.lines == [""], "half a wide character is not drawn")
  }
}
