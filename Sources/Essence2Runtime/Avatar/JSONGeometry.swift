
/// Reading points and boxes out of landmark and mesh JSON.
package enum JSONGeometry {
    /// Largest coordinate magnitude accepted before any further check (keeps Float conversion exact enough
    /// and integer rounding in range).
    package static let coordinateLimit: Double = 1_000_000

    package static func number(_ value: JSONValue) -> Double? {
        guard let number = value.doubleValue, abs(number) <= coordinateLimit else { return nil }
        return number
    }

    package static func point2(_ value: JSONValue) -> SIMD2<Float>? {
        guard let items = value.arrayValue, items.count == 2,
              let x = number(items[0]), let y = number(items[1]) else { return nil }
        return SIMD2(Float(x), Float(y))
    }

    package static func point3(_ value: JSONValue) -> SIMD3<Float>? {
        guard let items = value.arrayValue, items.count == 3,
              let x = number(items[0]), let y = number(items[1]), let z = number(items[2]) else { return nil }
        return SIMD3(Float(x), Float(y), Float(z))
    }

    /// An [x0, y0, x1, y1] box rounded outward and clipped to the image; nil when malformed or empty after clipping.
    package static func box(from value: JSONValue, width: Int, height: Int) -> PixelRect? {
        guard let items = value.arrayValue, items.count == 4 else { return nil }
        let numbers = items.compactMap(number)
        guard numbers.count == 4, numbers[2] > numbers[0], numbers[3] > numbers[1] else { return nil }
        let x0 = max(0, Int(numbers[0].rounded(.down))), y0 = max(0, Int(numbers[1].rounded(.down)))
        let x1 = min(width, Int(numbers[2].rounded(.up))), y1 = min(height, Int(numbers[3].rounded(.up)))
        guard x1 > x0, y1 > y0 else { return nil }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Checks an optional top-level `width`/`height` against the portrait's size.
    package static func checkImageSize(_ json: JSONValue, width: Int, height: Int, label: String) throws(AvatarFileError) {
        for (key, expected) in [("width", width), ("height", height)] {
            guard let value = json[key] else { continue }
            guard let actual = value.intValue else {
                throw AvatarFileError(.invalidInput, "\(label): \"\(key)\" is not an integer")
            }
            guard actual == expected else {
                throw AvatarFileError(.invalidInput, "\(label): made for an image with \(key) \(actual), but the portrait's \(key) is \(expected)")
            }
        }
    }
}
