extension String {
    /// The UTF-8 text in `buffer` up to its first NUL (or its end).
    init(nulTerminated buffer: [CChar]) {
        self = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
