extension ExifOrientation {
    /// The orientation recorded in a JPEG file's first EXIF block, or nil when it has none or the block is
    /// malformed (a damaged block is ignored: the picture is then used as stored).
    ///
    /// Walks the marker segments from SOI up to the first SOS or EOI, each length checked against the bytes,
    /// and reads the first APP1 segment that starts with "Exif\0\0". Nothing is decoded.
    package init?(jpeg bytes: [UInt8]) {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var position = 2
        while position < bytes.count {
            guard bytes[position] == 0xFF else { return nil }  // not at a marker: the stream is damaged
            while position < bytes.count, bytes[position] == 0xFF { position += 1 }  // fill bytes
            guard position < bytes.count else { return nil }
            let marker = bytes[position]
            position += 1
            switch marker {
            case 0xD8, 0x01, 0xD0...0xD7: continue  // markers without a length
            case 0xD9, 0xDA: return nil  // end of image, or the entropy-coded data begins: no EXIF before it
            default: break
            }
            guard position + 2 <= bytes.count else { return nil }
            let length = Int(bytes[position]) << 8 | Int(bytes[position + 1])
            let end = position + length
            guard length >= 2, end <= bytes.count else { return nil }
            let payload = bytes[(position + 2)..<end]
            if marker == 0xE1, payload.starts(with: Self.exifSignature) {
                self.init(tiff: payload.dropFirst(Self.exifSignature.count))
                return
            }
            position = end
        }
        return nil
    }

    /// The orientation in a TIFF structure (an EXIF block after its "Exif\0\0" signature): the first value of
    /// tag 0x0112 in IFD0, read in the block's byte order ("II" little-endian, "MM" big-endian). Nil when the
    /// tag is missing, its value is not 1-8, or any offset or count points outside `tiff` (IFD0 must fit whole).
    package init?(tiff: ArraySlice<UInt8>) {
        let base = tiff.startIndex, count = tiff.count
        guard count >= 8 else { return nil }
        let bigEndian: Bool
        switch (tiff[base], tiff[base + 1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        // Every read is bounds-checked against the block; offsets are relative to its start.
        func u16(_ offset: Int) -> Int? {
            guard offset >= 0, offset <= count - 2 else { return nil }
            let a = Int(tiff[base + offset]), b = Int(tiff[base + offset + 1])
            return bigEndian ? a << 8 | b : b << 8 | a
        }
        func u32(_ offset: Int) -> Int? {
            guard let first = u16(offset), let second = u16(offset + 2) else { return nil }
            return bigEndian ? first << 16 | second : second << 16 | first
        }
        // IFD0: an entry count, then 12 bytes an entry, all inside the block (one claiming more is damaged).
        guard u16(2) == 42, let ifd = u32(4), let entries = u16(ifd), ifd + 2 + 12 * entries <= count else { return nil }
        for index in 0..<entries {
            let entry = ifd + 2 + 12 * index
            guard let tag = u16(entry), let type = u16(entry + 2), let values = u32(entry + 4) else { return nil }
            guard tag == Self.tag else { continue }
            // SHORT (3) as the specification says; LONG (4) from lenient writers. One value fits in the entry.
            let value: Int?
            switch type {
            case 3: value = values >= 1 ? u16(entry + 8) : nil
            case 4: value = values >= 1 ? u32(entry + 8) : nil
            default: value = nil
            }
            guard let value, let raw = UInt16(exactly: value) else { return nil }
            self.init(rawValue: raw)
            return
        }
        return nil
    }

    /// The TIFF tag number of Orientation.
    package static let tag = 0x0112

    /// What an APP1 segment holding EXIF starts with.
    package static let exifSignature: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]
}
