/// SHA-256 (FIPS 180-4), implemented here so the engine needs no crypto library.
package enum SHA256 {
    /// Size of a digest in bytes.
    package static let digestSize = 32

    /// The 32-byte digest of `bytes`.
    package static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var state = initialState
        let fullBlocks = bytes.count / 64
        if fullBlocks > 0, let base = bytes.baseAddress {
            compress(&state, blocks: UnsafeRawBufferPointer(start: base, count: fullBlocks * 64))
        }
        // Final block(s): the remaining bytes, 0x80, zero padding, and the bit length (big-endian).
        let rest = bytes.count - fullBlocks * 64
        var tail = [UInt8](repeating: 0, count: rest < 56 ? 64 : 128)
        for i in 0..<rest { tail[i] = bytes[fullBlocks * 64 + i] }
        tail[rest] = 0x80
        let bitLength = UInt64(bytes.count) &* 8
        for i in 0..<8 { tail[tail.count - 1 - i] = UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(i))) }
        tail.withUnsafeBytes { compress(&state, blocks: $0) }
        var digest = [UInt8](repeating: 0, count: digestSize)
        for (i, word) in state.enumerated() {
            digest[4 * i] = UInt8(truncatingIfNeeded: word >> 24)
            digest[4 * i + 1] = UInt8(truncatingIfNeeded: word >> 16)
            digest[4 * i + 2] = UInt8(truncatingIfNeeded: word >> 8)
            digest[4 * i + 3] = UInt8(truncatingIfNeeded: word)
        }
        return digest
    }

    /// The 32-byte digest of `bytes`.
    package static func hash(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { hash($0) }
    }

    /// The 32-byte digest of `bytes[range]`; `range` must lie inside `bytes`.
    package static func hash(_ bytes: [UInt8], range: Range<Int>) -> [UInt8] {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "hash range outside the buffer")
        return bytes.withUnsafeBytes { hash(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// Lower-case hexadecimal text of `bytes` (two characters a byte).
    package static func hex(_ bytes: [UInt8]) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static let initialState: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]

    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// Runs the compression function over whole 64-byte blocks.
    private static func compress(_ state: inout [UInt32], blocks: UnsafeRawBufferPointer) {
        precondition(blocks.count % 64 == 0, "SHA-256 compresses whole blocks only")
        var h0 = state[0], h1 = state[1], h2 = state[2], h3 = state[3]
        var h4 = state[4], h5 = state[5], h6 = state[6], h7 = state[7]
        roundConstants.withUnsafeBufferPointer { k in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                var offset = 0
                while offset < blocks.count {
                    for t in 0..<16 {
                        let p = offset + 4 * t
                        w[t] = UInt32(blocks[p]) << 24 | UInt32(blocks[p + 1]) << 16
                            | UInt32(blocks[p + 2]) << 8 | UInt32(blocks[p + 3])
                    }
                    for t in 16..<64 {
                        let x = w[t - 15], y = w[t - 2]
                        let s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3)
                        let s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >> 10)
                        w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
                    }
                    var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7
                    for t in 0..<64 {
                        let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                        let choose = (e & f) ^ (~e & g)
                        let t1 = h &+ s1 &+ choose &+ k[t] &+ w[t]
                        let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                        let majority = (a & b) ^ (a & c) ^ (b & c)
                        let t2 = s0 &+ majority
                        h = g; g = f; f = e; e = d &+ t1
                        d = c; c = b; b = a; a = t1 &+ t2
                    }
                    h0 = h0 &+ a; h1 = h1 &+ b; h2 = h2 &+ c; h3 = h3 &+ d
                    h4 = h4 &+ e; h5 = h5 &+ f; h6 = h6 &+ g; h7 = h7 &+ h
                    offset += 64
                }
            }
        }
        state = [h0, h1, h2, h3, h4, h5, h6, h7]
    }

    @inline(__always)
    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 {
        (x >> n) | (x << (32 - n))
    }
}
