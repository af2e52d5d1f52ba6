import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Essence2Kit
@testable import Essence2Runtime

/// Essence2Kit and the C interface are one engine: unpaced, the same avatar, audio and seed give the same bytes.
/// The C side is the built library (`make build`: build/lib/libessence2.so.1, or $ESSENCE2_LIB), loaded with dlopen.
@Suite struct KitCInterfaceTests {
    typealias Create = @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32,
                                       UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    typealias SetInt = @convention(c) (OpaquePointer?, Int32) -> Int32
    typealias SetSeed = @convention(c) (OpaquePointer?, UInt64) -> Int32
    typealias Push = @convention(c) (OpaquePointer?, UnsafePointer<Int16>?, Int32) -> Int32
    typealias Handle = @convention(c) (OpaquePointer?) -> Int32
    typealias Pull = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32

    static var libraryPath: String {
        if let given = getenv("ESSENCE2_LIB") { return String(cString: given) }
        return TestAvatar.repositoryRoot + "/build/lib/libessence2.so.1"
    }

    static func symbol<T>(_ library: UnsafeMutableRawPointer, _ name: String, as type: T.Type) throws -> T {
        let found = try #require(dlsym(library, name), "\(name) is missing from the library")
        return unsafeBitCast(found, to: type)
    }

    /// FNV-1a of each speech and ramp frame the C interface hands out for `samples`, in order.
    static func cFrameHashes(_ samples: [Int16], seed: UInt64) throws -> [UInt64] {
        let library = try #require(dlopen(libraryPath, RTLD_NOW | RTLD_LOCAL),
                                   "cannot load \(libraryPath): run `make build` first (\(String(cString: dlerror())))")
        let create = try symbol(library, "be_essence2_create", as: Create.self)
        let setPacing = try symbol(library, "be_essence2_set_pacing", as: SetInt.self)
        let setSeed = try symbol(library, "be_essence2_set_seed", as: SetSeed.self)
        let push = try symbol(library, "be_essence2_push_audio", as: Push.self)
        let end = try symbol(library, "be_essence2_end_utterance", as: Handle.self)
        let pull = try symbol(library, "be_essence2_pull_frame", as: Pull.self)
        let kind = try symbol(library, "be_essence2_last_frame_kind", as: Handle.self)
        let destroy = try symbol(library, "be_essence2_destroy", as: Handle.self)
        var handle: OpaquePointer?
        try #require(create(KitStreamTests.avatarPath, nil, 0, &handle) == 0)
        defer { _ = destroy(handle) }
        try #require(setPacing(handle, 1) == 0 && setSeed(handle, seed) == 0)
        try #require(samples.withUnsafeBufferPointer { push(handle, $0.baseAddress, Int32($0.count)) } == 0)
        try #require(end(handle) == 0)
        var frame = [UInt8](repeating: 0, count: 512 * 600 * 3)
        var hashes: [UInt64] = []
        var sawSpeech = false
        for _ in 0..<20_000 {
            let got = frame.withUnsafeMutableBufferPointer { pull(handle, $0.baseAddress, Int32($0.count)) }
            try #require(got >= 0)
            if got == 0 {
                usleep(500)
                continue
            }
            let k = kind(handle)
            if k == 1 { sawSpeech = true }
            if k == 0 && sawSpeech { break }
            if k != 0 { hashes.append(fnv1a(frame)) }
        }
        return hashes
    }

    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }

    @Test func unpacedKitFramesAreByteIdenticalToTheCInterfaces() async throws {
        let samples = EngineTests.speech(seconds: 1.5)
        let seed: UInt64 = 0xE55E
        let expected = try Self.cFrameHashes(samples, seed: seed)
        let engine = try await Essence2Engine.create(identity: KitStreamTests.avatarPath, clock: SystemKitClock())
        engine.pacing = .unpaced
        engine.setSeed(seed)
        // The Kit scales floats by 32767, so these are the same int16 samples.
        engine.feed(samples.map { Float($0) / 32767 })
        engine.flushTail()
        var hashes: [UInt64] = []
        while let frame = await engine.nextFrame() {
            if frame.endsReply { break }
            if frame.index >= 0 { hashes.append(Self.fnv1a(frame.bgr)) }
        }
        engine.shutdown()
        #expect(expected.count == 38 + 5, "the C interface: 38 speech frames and 5 easing to rest, got \(expected.count)")
        #expect(hashes == expected)
    }
}
