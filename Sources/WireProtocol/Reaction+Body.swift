import Foundation
import PlaybackCoordination

/// A reaction as a messenger payload's body (kind ``MessageKind/reaction``):
/// `{"text":"😂","at":754.2}`. Read back only when it holds what ``Reaction`` allows, so
/// that a peer cannot make anyone show a reaction out of bounds.
extension Reaction {
  private struct Body: Codable {
    var text: String
    var at: Double
  }

  /// The body to send.
  public var body: String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let at = (at * 10).rounded() / 10
    guard let data = try? encoder.encode(Body(text: text, at: at)) else { return "" }
    return String(decoding: data, as: UTF8.self)
  }

  /// The reaction a body holds, or why it is not one, in words.
  public static func read(body: String) -> Result<Reaction, Rejection> {
    guard body.utf8.count <= 256,
      let decoded = try? JSONDecoder().decode(Body.self, from: Data(body.utf8))
    else { return .failure(.invalidValue("a reaction's body is not {\"text\":…,\"at\":…}")) }
    if let refusal = refusal(decoded.text) { return .failure(.invalidValue(refusal)) }
    guard decoded.text == decoded.text.trimmingCharacters(in: .whitespaces) else {
      return .failure(.invalidValue("a reaction's text begins or ends with a space"))
    }
    guard isPlausible(at: decoded.at) else {
      return .failure(.invalidValue("a reaction's film time is not a time in the film"))
    }
    return .success(Reaction(text: decoded.text, at: decoded.at))
  }
}
