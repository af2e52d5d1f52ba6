import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

@Suite struct SHA256Tests {
    private func hexDigest(_ text: String) -> String {
        SHA256.hex(SHA256.hash(Array(text.utf8)))
    }

    @Test func abcMatchesTheFIPS180Vector() {
        #expect(hexDigest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func emptyInputMatchesTheKnownDigest() {
        #expect(hexDigest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func twoBlockMessagesMatchTheFIPS180Vectors() {
        #expect(hexDigest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(hexDigest("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")
            == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    @Test func oneMillionLetterAMatchesTheFIPS180Vector() {
        let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hex(SHA256.hash(bytes)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Every length from 0 to 199 bytes (all the padding cases around 55, 56, 64, 119, 120 and 128 bytes):
    /// the digest of the concatenated digests, computed with Python's hashlib.
    @Test func everyPaddingLengthMatchesHashlib() {
        var concatenated: [UInt8] = []
        for length in 0..<200 {
            concatenated += SHA256.hash((0..<length).map { UInt8($0 % 251) })
        }
        #expect(SHA256.hex(SHA256.hash(concatenated)) == "ba7b0fcea7d10c06b855b43d2b4dce1e3e842fff6be0acefb0faf4f2dd05bb47")
    }

    @Test func rangeHashEqualsHashOfTheSlice() {
        let bytes = (0..<300).map { UInt8($0 & 255) }
        #expect(SHA256.hash(bytes, range: 17..<211) == SHA256.hash(Array(bytes[17..<211])))
        #expect(SHA256.hash(bytes).count == SHA256.digestSize)
    }

    @Test func hexWritesTwoLowerCaseDigitsPerByte() {
        #expect(SHA256.hex([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
        #expect(SHA256.hex([]) == "")
    }
}
