/// How many single-character insertions, deletions and substitutions turn one short word
/// into another: what "did you mean /tell?" and "did you mean --name?" are chosen by.
public enum EditDistance {
  public static func between(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var row = Array(0...b.count)
    for i in 1...a.count {
      var previous = row[0]
      row[0] = i
      for j in 1...b.count {
        let kept = row[j]
        row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
        previous = kept
      }
    }
    return row[b.count]
  }

  /// The candidate nearest `word`, if it is at most `limit` edits away.
  public static func nearest(to word: String, among candidates: [String], limit: Int = 2)
    -> String?
  {
    candidates.min { between(word, $0) < between(word, $1) }
      .flatMap { between(word, $0) <= limit ? $0 : nil }
  }
}
