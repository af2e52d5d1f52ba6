/// Copies `text` into a C buffer of `capacity` bytes, NUL-terminated and truncated to fit (at a UTF-8
/// character boundary). Returns the full byte length of `text`, or -1 for a NULL buffer with capacity > 0
/// or a negative capacity.
func copyCString(_ text: String, to out: UnsafeMutablePointer<CChar>?, capacity: Int32) -> Int32 {
    guard capacity >= 0, out != nil || capacity == 0 else { return -1 }
    let utf8 = Array(text.utf8)
    if let out, capacity > 0 {
        var n = min(utf8.count, Int(capacity) - 1)
        while n > 0, n < utf8.count, utf8[n] & 0xC0 == 0x80 { n -= 1 }
        for i in 0..<n { out[i] = CChar(bitPattern: utf8[i]) }
        out[n] = 0
    }
    return Int32(clamping: utf8.count)
}
