import Essence2Runtime

/// How a portrait of any size becomes an avatar image of a chosen size: which part of it to keep (around the
/// face) and the resampling. Pure functions of the sizes and the face box, so they are tested on their own.
package enum PortraitFraming {
    /// Longest side an avatar gets when no size is asked for: larger portraits are scaled down to it (rendering
    /// cost grows with the pixel count; 1920 is full-HD video).
    package static let defaultLongSide = 1920

    /// The size a `width` x `height` portrait keeps when no size is asked for: unchanged up to
    /// `defaultLongSide`, else scaled down to it, aspect ratio kept.
    package static func defaultSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let long = max(width, height)
        guard long > defaultLongSide, width > 0, height > 0 else { return (width, height) }
        let scale = Double(defaultLongSide) / Double(long)
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    /// The region of a `imageWidth` x `imageHeight` portrait that fills a `canvasWidth` x `canvasHeight` canvas
    /// when cropping (not fitting): the canvas's aspect ratio, as large as the portrait allows, centred
    /// horizontally on the face and with the face's centre at 45% of the height, moved as little as needed to
    /// stay inside the portrait.
    /// - Parameter face: the face box in portrait pixels (x, y, width, height).
    package static func cropRegion(imageWidth: Int, imageHeight: Int, face: (x: Float, y: Float, width: Float, height: Float),
                                  canvasWidth: Int, canvasHeight: Int) -> PixelRect {
        guard imageWidth > 0, imageHeight > 0, canvasWidth > 0, canvasHeight > 0 else {
            return PixelRect(x: 0, y: 0, width: max(imageWidth, 0), height: max(imageHeight, 0))
        }
        let aspect = Double(canvasWidth) / Double(canvasHeight)
        var cropW = Double(imageWidth)
        var cropH = cropW / aspect
        if cropH > Double(imageHeight) {
            cropH = Double(imageHeight)
            cropW = cropH * aspect
        }
        let w = min(imageWidth, max(1, Int(cropW.rounded())))
        let h = min(imageHeight, max(1, Int(cropH.rounded())))
        func finite(_ v: Float, _ fallback: Double) -> Double { v.isFinite ? Double(v) : fallback }
        let centreX = finite(face.x + face.width / 2, Double(imageWidth) / 2)
        let centreY = finite(face.y + face.height / 2, Double(imageHeight) / 2)
        let x = Int((centreX - Double(w) / 2).rounded())
        let y = Int((centreY - 0.45 * Double(h)).rounded())
        return PixelRect(x: min(max(x, 0), imageWidth - w), y: min(max(y, 0), imageHeight - h), width: w, height: h)
    }

    /// Enlargement beyond which a portrait looks soft in the avatar (`essence2 avatar build` warns past it).
    package static let softEnlargement = 1.5

    /// How many times `region` is enlarged when resized to `newWidth` x `newHeight`: the larger of the two
    /// axes' factors (under 1 when shrinking; 0 for an empty region).
    package static func enlargement(region: PixelRect, toWidth newWidth: Int, height newHeight: Int) -> Double {
        guard region.width > 0, region.height > 0 else { return 0 }
        return max(Double(newWidth) / Double(region.width), Double(newHeight) / Double(region.height))
    }

    /// `region` of a packed B,G,R image resized to `newWidth` x `newHeight` (bilinear when enlarging, area
    /// averaging when shrinking). The region is clipped to the image.
    /// - Returns: nil when the buffer does not match the size, or a size or the clipped region is empty.
    package static func resample(bgr pixels: [UInt8], width: Int, height: Int, region: PixelRect,
                                toWidth newWidth: Int, height newHeight: Int) -> [UInt8]? {
        guard width > 0, height > 0, pixels.count == width * height * 3, newWidth > 0, newHeight > 0,
              newWidth <= AvatarFileFormat.maxSide, newHeight <= AvatarFileFormat.maxSide,
              newWidth * newHeight <= AvatarFileFormat.maxPixels else { return nil }
        let x0 = min(max(region.x, 0), width), y0 = min(max(region.y, 0), height)
        let x1 = min(max(region.maxX, x0), width), y1 = min(max(region.maxY, y0), height)
        guard x1 > x0, y1 > y0 else { return nil }
        var cropped: [UInt8]
        if x0 == 0, y0 == 0, x1 == width, y1 == height {
            cropped = pixels
        } else {
            let rowBytes = (x1 - x0) * 3
            cropped = [UInt8](repeating: 0, count: rowBytes * (y1 - y0))
            for row in y0..<y1 {
                let src = (row * width + x0) * 3, dst = (row - y0) * rowBytes
                cropped[dst..<(dst + rowBytes)] = pixels[src..<(src + rowBytes)]
            }
        }
        return ImageResampler.resize(cropped, width: x1 - x0, height: y1 - y0, channels: 3, to: newWidth, newHeight)
    }
}
