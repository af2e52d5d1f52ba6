// swift-tools-version:6.0
// An app of its own that uses essence2's Swift API: depends on the essence2 package (here by path, from
// this repository; in your app by URL and version) and imports Essence2Kit alone.
import PackageDescription

let package = Package(
    name: "essence2-swift-example",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "essence2", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "RenderFrames",
            dependencies: [.product(name: "Essence2Kit", package: "essence2")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
