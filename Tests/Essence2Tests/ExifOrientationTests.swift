import Testing
@testable import Essence2Authoring

/// Reading the EXIF Orientation tag from JPEG bytes (both byte orders, bounds-checked, malformed blocks
/// ignored) and turning pixels upright as the EXIF specification defines each of the 8 cases.
@Suite struct ExifOrientationTests {
    // MARK: building JPEG and TIFF bytes

    /// A marker segment: FF, marker, big-endian length (including itself), payload.
    private func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    private func u16(_ value: Int, big: Bool) -> [UInt8] {
        big ? [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
    }

    private func u32(_ value: Int, big: Bool) -> [UInt8] {
        big ? u16(value >> 16, big: true) + u16(value & 0xFFFF, big: true)
            : u16(value & 0xFFFF, big: false) + u16(value >> 16, big: false)
    }

    /// A 12-byte IFD entry: tag, type, count, value/offset field (4 bytes as given).
    private func entry(tag: Int, type: Int, count: Int, field: [UInt8], big: Bool) -> [UInt8] {
        u16(tag, big: big) + u16(type, big: big) + u32(count, big: big) + field
    }

    /// A TIFF block as cameras write it: header, IFD0 at 8 with Make (ASCII text at an offset, after the IFD)
    /// and then Orientation (SHORT, `orientation`), no next IFD.
    private func tiff(orientation: Int, big: Bool) -> [UInt8] {
        let make = Array("essence2 test\0".utf8)
        let dataOffset = 8 + 2 + 12 * 2 + 4
        var bytes = (big ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42, big: big) + u32(8, big: big)
        bytes += u16(2, big: big)
        bytes += entry(tag: 0x010F, type: 2, count: make.count, field: u32(dataOffset, big: big), big: big)
        bytes += entry(tag: 0x0112, type: 3, count: 1, field: u16(orientation, big: big) + [0, 0], big: big)
        bytes += u32(0, big: big) + make
        return bytes
    }

    /// A JPEG's header part: SOI, a JFIF APP0, the given segments, a quantisation table, SOS and a few bytes of
    /// "scan data" (the reader stops at SOS, so nothing after it matters).
    private func jpeg(_ segments: [UInt8]...) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += segment(0xE0, Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0])
        for s in segments { bytes += s }
        bytes += segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        bytes += segment(0xDA, [1, 1, 0, 0, 63, 0]) + [0x12, 0x34, 0xFF, 0x00, 0x56, 0xFF, 0xD9]
        return bytes
    }

    private func exif(_ tiff: [UInt8]) -> [UInt8] { segment(0xE1, ExifOrientation.exifSignature + tiff) }

    // MARK: reading

    @Test func everyOrientationIsReadInBothByteOrders() {
        for value in 1...8 {
            for big in [false, true] {
                let bytes = jpeg(exif(tiff(orientation: value, big: big)))
                #expect(ExifOrientation(jpeg: bytes)?.rawValue == UInt16(value), "value \(value), big-endian \(big)")
            }
        }
    }

    @Test func theExifBlockIsFoundAfterAnXMPSegmentAndFillBytes() {
        let xmp = segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>".utf8))
        var bytes = jpeg(xmp, exif(tiff(orientation: 6, big: true)))
        #expect(ExifOrientation(jpeg: bytes) == .rotate90Clockwise)
        // Fill bytes (extra 0xFF) before a marker are allowed.
        bytes.insert(contentsOf: [0xFF, 0xFF], at: 2)
        #expect(ExifOrientation(jpeg: bytes) == .rotate90Clockwise)
    }

    @Test func aLongOrientationValueFromALenientWriterIsRead() {
        var block = tiff(orientation: 8, big: false)
        // Turn the Orientation entry (the second, at 8 + 2 + 12) into LONG with a 32-bit value.
        block.replaceSubrange(22 + 2..<22 + 4, with: u16(4, big: false))
        block.replaceSubrange(22 + 8..<22 + 12, with: u32(8, big: false))
        #expect(ExifOrientation(jpeg: jpeg(exif(block))) == .rotate270Clockwise)
    }

    @Test func aJPEGWithoutExifAndOtherFilesHaveNoOrientation() {
        #expect(ExifOrientation(jpeg: jpeg()) == nil)
        #expect(ExifOrientation(jpeg: jpeg(segment(0xE1, Array("Exif".utf8)))) == nil)  // signature cut short
        #expect(ExifOrientation(jpeg: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) == nil)  // PNG
        #expect(ExifOrientation(jpeg: []) == nil)
        #expect(ExifOrientation(jpeg: [0xFF, 0xD8]) == nil)
        // An EXIF block after the scan starts is not looked at.
        #expect(ExifOrientation(jpeg: jpeg() + exif(tiff(orientation: 6, big: true))) == nil)
        // A block without tag 0x0112.
        var noTag = tiff(orientation: 6, big: true)
        noTag.replaceSubrange(22..<24, with: u16(0x0131, big: true))
        #expect(ExifOrientation(jpeg: jpeg(exif(noTag))) == nil)
    }

    @Test func malformedExifBlocksAreIgnoredNotTrusted() {
        let good = tiff(orientation: 6, big: true)
        func withBytes(_ range: Range<Int>, _ replacement: [UInt8]) -> [UInt8] {
            var block = good
            block.replaceSubrange(range, with: replacement)
            return block
        }
        let malformed: [(String, [UInt8])] = [
            ("IFD0 offset past the end", withBytes(4..<8, u32(0xFFFF_FFF6, big: true))),
            ("IFD0 offset at the last byte", withBytes(4..<8, u32(good.count - 1, big: true))),
            ("more entries than the block holds", withBytes(8..<10, u16(0xFFFF, big: true))),
            ("block cut inside the Orientation entry", Array(good[0..<(22 + 9)])),
            ("block cut inside the header", Array(good[0..<7])),
            ("unknown byte order", withBytes(0..<2, [0x49, 0x4D])),
            ("magic number not 42", withBytes(2..<4, u16(43, big: true))),
            ("orientation 0", withBytes(30..<32, u16(0, big: true))),
            ("orientation 9", withBytes(30..<32, u16(9, big: true))),
            ("orientation 65535", withBytes(30..<32, u16(0xFFFF, big: true))),
            ("orientation typed ASCII", withBytes(24..<26, u16(2, big: true))),
            ("orientation with no values", withBytes(26..<30, u32(0, big: true))),
            ("empty block", []),
        ]
        for (what, block) in malformed {
            #expect(ExifOrientation(jpeg: jpeg(exif(block))) == nil, "\(what)")
        }
    }

    @Test func segmentLengthsThatLeaveTheFileEndTheSearch() {
        let exifSegment = exif(tiff(orientation: 3, big: false))
        var bytes = jpeg(exifSegment)
        // The APP0 segment's length claims more bytes than the file has: nothing after it is trusted.
        bytes[4] = 0xFF
        bytes[5] = 0xFF
        #expect(ExifOrientation(jpeg: bytes) == nil)
        // A length under 2 (it counts itself).
        var short = jpeg(exifSegment)
        short[4] = 0
        short[5] = 1
        #expect(ExifOrientation(jpeg: short) == nil)
        // Cut off inside the EXIF segment.
        let whole = jpeg(exifSegment)
        #expect(ExifOrientation(jpeg: Array(whole[0..<(20 + 10)])) == nil)
    }

    @Test func everyTruncationAndByteChangeOfAnExifJPEGIsHandledWithoutATrap() {
        let original = jpeg(exif(tiff(orientation: 5, big: false)), exif(tiff(orientation: 7, big: true)))
        #expect(ExifOrientation(jpeg: original) == .transpose)
        var results = 0
        for length in 0...original.count {
            if ExifOrientation(jpeg: Array(original[0..<length])) != nil { results += 1 }
        }
        for index in original.indices {
            for value: UInt8 in [0x00, 0x01, 0x07, 0x80, 0xFE, 0xFF, original[index] ^ 0x10] {
                var mutant = original
                mutant[index] = value
                if let found = ExifOrientation(jpeg: mutant) { #expect((1...8).contains(found.rawValue)); results += 1 }
            }
        }
        // Most mutants still read an orientation (only a few bytes matter), so the reader was exercised.
        #expect(results > original.count)
    }

    // MARK: turning pixels

    /// The 3x2 one-byte-a-pixel picture  1 2 3 / 4 5 6  as each orientation displays it, worked out by hand
    /// from the EXIF definitions (for 6: stored row 0 is the displayed right-hand column, top to bottom).
    @Test(arguments: [
        (ExifOrientation.identity, 3, 2, [1, 2, 3, 4, 5, 6]),
        (.mirrorHorizontal, 3, 2, [3, 2, 1, 6, 5, 4]),
        (.rotate180, 3, 2, [6, 5, 4, 3, 2, 1]),
        (.mirrorVertical, 3, 2, [4, 5, 6, 1, 2, 3]),
        (.transpose, 2, 3, [1, 4, 2, 5, 3, 6]),
        (.rotate90Clockwise, 2, 3, [4, 1, 5, 2, 6, 3]),
        (.transverse, 2, 3, [6, 3, 5, 2, 4, 1]),
        (.rotate270Clockwise, 2, 3, [3, 6, 2, 5, 1, 4]),
    ] as [(ExifOrientation, Int, Int, [UInt8])])
    func eachOrientationTurnsPixelsAsTheExifDefinitionSays(_ orientation: ExifOrientation, width: Int, height: Int,
                                                           expected: [UInt8]) throws {
        let shown = try #require(orientation.upright([1, 2, 3, 4, 5, 6], width: 3, height: 2, channels: 1))
        #expect(shown.width == width && shown.height == height)
        #expect(shown.pixels == expected)
        #expect(orientation.displayedSize(width: 3, height: 2) == (width, height))
    }

    @Test func threeChannelPixelsMoveWholeAndTheTurnsComposeLikeRotations() throws {
        // 5x4 B,G,R: every pixel's bytes are (index, index + 100, 255 - index).
        let width = 5, height = 4
        var pixels: [UInt8] = []
        for i in 0..<(width * height) { pixels += [UInt8(i), UInt8(i + 100), UInt8(255 - i)] }
        func apply(_ o: ExifOrientation, _ image: (pixels: [UInt8], width: Int, height: Int)) throws
            -> (pixels: [UInt8], width: Int, height: Int) {
            try #require(o.upright(image.pixels, width: image.width, height: image.height, channels: 3))
        }
        let start = (pixels, width, height)
        let quarter = try apply(.rotate90Clockwise, start)
        for p in stride(from: 0, to: quarter.pixels.count, by: 3) {
            let i = Int(quarter.pixels[p])
            #expect(quarter.pixels[p + 1] == UInt8(i + 100) && quarter.pixels[p + 2] == UInt8(255 - i))
        }
        let half = try apply(.rotate90Clockwise, quarter)
        #expect(half.pixels == (try apply(.rotate180, start)).pixels)
        let threeQuarters = try apply(.rotate90Clockwise, half)
        #expect(threeQuarters.pixels == (try apply(.rotate270Clockwise, start)).pixels)
        #expect(threeQuarters.width == height && threeQuarters.height == width)
        let full = try apply(.rotate90Clockwise, threeQuarters)
        #expect(full.pixels == pixels && full.width == width)
        // Mirrors and the diagonal flips undo themselves; transverse is transpose turned half a turn.
        for o in [ExifOrientation.mirrorHorizontal, .mirrorVertical, .transpose, .transverse, .rotate180] {
            #expect(try apply(o, apply(o, start)).pixels == pixels, "\(o)")
        }
        #expect(try apply(.rotate180, apply(.transpose, start)).pixels == (try apply(.transverse, start)).pixels)
    }

    @Test func mismatchedBuffersAndEmptySizesAreRefused() {
        #expect(ExifOrientation.rotate90Clockwise.upright([1, 2, 3], width: 2, height: 2, channels: 1) == nil)
        #expect(ExifOrientation.rotate90Clockwise.upright([], width: 0, height: 0, channels: 3) == nil)
        #expect(ExifOrientation.mirrorHorizontal.upright([1, 2], width: -1, height: -2, channels: 1) == nil)
        #expect(ExifOrientation.transpose.upright([1], width: Int.max, height: 2, channels: 3) == nil)
    }

    @Test func theFourTurningCasesSwapSidesAndSayWhatWasDone() {
        #expect(ExifOrientation.allCases.filter(\.swapsSides) == [.transpose, .rotate90Clockwise, .transverse, .rotate270Clockwise])
        #expect(ExifOrientation.rotate90Clockwise.action == "rotated 90° clockwise")
        #expect(Set(ExifOrientation.allCases.map(\.action)).count == 8)
    }
}
