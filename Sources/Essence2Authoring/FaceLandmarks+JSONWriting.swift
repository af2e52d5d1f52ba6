import Essence2Runtime

extension FaceLandmarks {
    /// These landmarks as JSON of the shape `AvatarBuilder` reads (`../shared/portraits/*.landmarks.json`), so
    /// found landmarks can be checked, edited and passed back with `--landmarks`.
    /// - Parameters: image: the portrait's file name, recorded; width, height: its size in pixels.
    package func jsonBytes(image: String, width: Int, height: Int, model: String) -> [UInt8] {
        let names = points.keys.sorted()
        let root = JSONValue.object([
            JSONMember("image", .string(image)),
            JSONMember("width", .number(String(width))),
            JSONMember("height", .number(String(height))),
            JSONMember("coords", .string("pixels, x right, y down; right/left = subject's own side")),
            JSONMember("mediapipe", .object([
                JSONMember("model", .string(model)),
                JSONMember("points", .object(names.map {
                    JSONMember($0, Self.jsonPoint(points[$0] ?? .zero))
                })),
                JSONMember("face_box_xyxy", Self.jsonBox(faceBox)),
                JSONMember("mouth_box_xyxy", Self.jsonBox(mouthBox)),
                JSONMember("lips_outer_polygon", .array(lipsOuter.map(Self.jsonPoint))),
                JSONMember("lips_inner_polygon", .array(lipsInner.map(Self.jsonPoint))),
            ])),
        ])
        return JSONWriter.write(root)
    }

    /// A coordinate rounded to 0.01 pixel (non-finite values, which validated landmarks never hold, as 0).
    static func jsonNumber(_ value: Float) -> JSONValue {
        guard value.isFinite else { return .number("0") }
        let hundredths = (Double(value) * 100).rounded()
        let sign = hundredths < 0 ? "-" : ""
        let magnitude = Int(min(abs(hundredths), 1e15))
        let fraction = magnitude % 100
        return .number("\(sign)\(magnitude / 100).\(fraction < 10 ? "0" : "")\(fraction)")
    }

    private static func jsonPoint(_ p: SIMD2<Float>) -> JSONValue { .array([jsonNumber(p.x), jsonNumber(p.y)]) }

    private static func jsonBox(_ box: PixelRect) -> JSONValue {
        .array([box.x, box.y, box.maxX, box.maxY].map { .number(String($0)) })
    }
}
