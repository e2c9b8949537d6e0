/// `1.5×`, `1×`, `0.75×`.
public enum RateFormat {
  public static func text(_ rate: Double) -> String {
    let hundredths = Int((rate * 100).rounded())
    var s = "\(hundredths / 100)"
    let frac = hundredths % 100
    if frac != 0 {
      s += frac % 10 == 0 ? ".\(frac / 10)" : (frac < 10 ? ".0\(frac)" : ".\(frac)")
    }
    return s + "×"
  }
}
