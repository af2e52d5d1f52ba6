// swift-tools-version:6.0
import PackageDescription

// The targets (docs/architecture.md; tools/check_architecture.py checks that this list, the document's table and the
// targets below agree):
//   CEssence2Weights   the learned lip-sync model's weights, embedded as bytes (C, #embed)
//   CCharacterWeights  the character point finder's two weights files (tools/character), embedded as bytes (C, #embed)
//   Essence2Runtime    engine, pacing, audio analysis and lip sync, the neural kernels and the E2NW weights reader,
//                      both renderers, .imx reader, the atomic file writer (no network code)
//   CCurlLoader        libcurl loaded at run time (dlopen) for the service client, its ABI declared here
//   Essence2Service    sessions and metering, avatar downloads, credentials, behind the runtime's FrameGate
//   Essence2           include/essence2.h and expression2.h as a C module (`import Essence2`; Essence2Kit
//                      re-exports it)
//   Essence2Interface  the C interface: the be_essence2_* and be_expression2_* thunks (@_cdecl)
//   Essence2C          libessence2.so: the thunks and the runtime with the library's link flags (no code)
//   Essence2Kit        the Swift API (the reference's Essence2Engine, frames as AsyncStream) on the runtime
//   Expression2        the Expression 2 Swift API (character avatars) on Essence2Kit
//   Essence2Vision     TensorFlow Lite reader and interpreter, face detector and landmarker (the command's)
//   Essence2Authoring  avatar builders (photoreal, character), the character point finder, .imx and JSON writing
//                      (the command's)
//   CSndfile           libsndfile (system library, the command's)
//   CJpeg              libjpeg (system library, the command's)
//   CPng               libpng (system library, the command's)
//   CSDL2Loader        SDL2 loaded at run time (dlopen) for `essence2 play`
//   essence2-cli       the `essence2` command
//   Essence2Tests      the Swift tests (make test-swift)
// No Swift target carries unsafe compiler flags: bounds checks stay on everywhere, and the hot loops get their
// speed from unsafe buffer pointers. The only unsafe flags are libessence2.so's link flags, in release builds.
let package = Package(
    name: "essence2",
    products: [
        .library(name: "essence2", type: .dynamic, targets: ["Essence2C"]),
        // The Swift API (docs/swift-api.md): `.product(name: "Essence2Kit", package: "essence2")`.
        .library(name: "Essence2Kit", targets: ["Essence2Kit"]),
        // The Expression 2 Swift API (character avatars): `.product(name: "Expression2", package: "essence2")`.
        .library(name: "Expression2", targets: ["Expression2"]),
        // The command is built as `essence2-cli`; the Makefile installs it as `essence2`.
        .executable(name: "essence2-cli", targets: ["essence2-cli"]),
    ],
    targets: [
        .target(name: "CEssence2Weights", exclude: ["lipsync_weights.e2nw"]),
        // The character point finder's weights (tools/character), embedded as bytes (C, #embed).
        .target(name: "CCharacterWeights", exclude: ["character_weights.e2nw", "character_refine.e2nw"]),
        // The engine, the renderer, the audio core and the .imx reader: no network code (FrameGate is its door).
        .target(name: "Essence2Runtime", dependencies: ["CEssence2Weights"]),
        // Sessions and metering, avatar downloads and credentials (docs/sessions.md), behind the runtime's
        // FrameGate: the HTTP client is libcurl, loaded at run time and only when a service is configured
        // (libessence2.so does not link it; its ABI is declared in CCurlLoader and checked against curl's header).
        .target(name: "CCurlLoader"),
        .target(name: "Essence2Service", dependencies: ["Essence2Runtime", "CCurlLoader"]),
        // The C interface as a Swift module: include/essence2.h through a module map (Sources/Essence2/include).
        .target(name: "Essence2"),
        .target(name: "Essence2Interface", dependencies: ["Essence2Runtime", "Essence2Service"]),
        // The Swift API; it re-exports `Essence2` and links the thunks, so `import Essence2Kit` also gives the
        // C interface (as the reference's Essence2Kit does).
        .target(name: "Essence2Kit", dependencies: ["Essence2Runtime", "Essence2Service", "Essence2", "Essence2Interface"]),
        // The reference's Expression 2 API, on the same engine (through Essence2Kit's frame and event machinery).
        .target(name: "Expression2", dependencies: ["Essence2Runtime", "Essence2Service", "Essence2Kit"]),
        .target(name: "Essence2Vision", dependencies: ["Essence2Runtime"]),
        .target(name: "Essence2Authoring", dependencies: ["Essence2Runtime", "Essence2Vision", "CCharacterWeights"]),
        .target(
            name: "Essence2C",
            dependencies: ["Essence2Interface"],
            exclude: ["exports.map"],
            linkerSettings: [
                // Static Swift runtime, only be_essence2_* and be_expression2_* exported (version node ESSENCE2_1), a SONAME, and
                // never unloaded (-z nodelete: a dlclose/dlopen cycle would crash once Dispatch has run).
                .unsafeFlags([
                    "-static-stdlib", "-use-ld=lld",
                    "-Xlinker", "--version-script=Sources/Essence2C/exports.map",
                    "-Xlinker", "-soname=libessence2.so.1",
                    "-Xlinker", "-z", "-Xlinker", "nodelete",
                ], .when(configuration: .release)),
            ]
        ),
        .systemLibrary(name: "CSndfile", pkgConfig: "sndfile"),
        .systemLibrary(name: "CJpeg"),
        .systemLibrary(name: "CPng", pkgConfig: "libpng"),
        // SDL2 for `essence2 play`, loaded at run time (the command does not link it).
        .target(name: "CSDL2Loader"),
        .executableTarget(
            name: "essence2-cli",
            dependencies: ["Essence2Runtime", "Essence2Service", "Essence2Kit", "Essence2Vision", "Essence2Authoring",
                           "CSndfile", "CJpeg", "CPng", "CSDL2Loader"]
        ),
        .testTarget(
            name: "Essence2Tests",
            dependencies: ["Essence2Runtime", "Essence2Service", "Essence2Vision", "Essence2Authoring", "Essence2Kit",
                           "Essence2Interface", "Expression2"],
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The libFuzzer harnesses (fuzz/, docs/fuzzing.md) exist only in the fuzzing build: `make fuzz` and `make test-fuzz`
// build them with ESSENCE2_FUZZ=1 and `--sanitize=fuzzer` (libFuzzer supplies their main, so a plain build could
// not link them), in a debug build with every bounds and overflow check on, in a scratch path of their own.
if Context.environment["ESSENCE2_FUZZ"] != nil {
    package.targets += [
        .target(name: "FuzzSupport", dependencies: ["Essence2Runtime", "Essence2Authoring"], path: "fuzz/Sources/FuzzSupport"),
        .executableTarget(name: "fuzz-imx", dependencies: ["FuzzSupport"], path: "fuzz/Sources/fuzz-imx"),
        .executableTarget(name: "fuzz-json", dependencies: ["FuzzSupport"], path: "fuzz/Sources/fuzz-json"),
        .executableTarget(name: "fuzz-audio", dependencies: ["FuzzSupport"], path: "fuzz/Sources/fuzz-audio"),
        .executableTarget(name: "fuzz-tflite", dependencies: ["FuzzSupport", "Essence2Vision"], path: "fuzz/Sources/fuzz-tflite"),
    ]
}
