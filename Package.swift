// swift-tools-version:6.0
import PackageDescription

// The engine's hot loops are optimised in debug builds too, so `swift test` renders at a useful speed.
let hot: [SwiftSetting] = [
    .unsafeFlags(["-Ounchecked", "-wmo"], .when(configuration: .release)),
    .unsafeFlags(["-O"], .when(configuration: .debug)),
]

let package = Package(
    name: "essence2",
    products: [
        .library(name: "essence2", type: .dynamic, targets: ["Essence2"]),
        // The command is built as `essence2-cli`; the Makefile installs it as `essence2`.
        .executable(name: "essence2-cli", targets: ["essence2-cli"]),
    ],
    targets: [
        .target(name: "Essence2Core", swiftSettings: hot),
        .target(
            name: "Essence2",
            dependencies: ["Essence2Core"],
            exclude: ["exports.map"],
            swiftSettings: hot,
            linkerSettings: [
                .unsafeFlags([
                    "-static-stdlib",
                    "-Xlinker", "--version-script=Sources/Essence2/exports.map",
                    "-Xlinker", "-z", "-Xlinker", "nodelete",
                ], .when(configuration: .release)),
            ]
        ),
        .systemLibrary(name: "CSndfile", pkgConfig: "sndfile"),
        .systemLibrary(name: "CSamplerate", pkgConfig: "samplerate"),
        .systemLibrary(name: "CJpeg"),
        .systemLibrary(name: "CPng", pkgConfig: "libpng"),
        .executableTarget(
            name: "essence2-cli",
            dependencies: ["Essence2Core", "CSndfile", "CSamplerate", "CJpeg", "CPng"],
            swiftSettings: hot
        ),
        .testTarget(name: "Essence2CoreTests", dependencies: ["Essence2Core"], exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
