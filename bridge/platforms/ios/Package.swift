// swift-tools-version:5.9
// The gc-bridge iOS kit as a Swift package. In Xcode: File > Add Package Dependencies... and
// point it at this directory (or the repository, path bridge/platforms/ios); in a Package.swift:
//     .package(path: "../gc-bridge/bridge/platforms/ios")
// then depend on the "GcComments" product. bridge.js and the app-side protocol table travel as
// resources of the target (Bundle.module).
import PackageDescription

let package = Package(
    name: "GcComments",
    platforms: [.iOS(.v15)],
    products: [
        .library(name: "GcComments", targets: ["GcComments"]),
    ],
    targets: [
        .target(
            name: "GcComments",
            path: "GcComments",
            resources: [
                .copy("gc-bridge.js"),
                .copy("app-protocol.json"),
            ]
        ),
        // The app-side protocol table against GcSsoCoordinator (run in Xcode on a simulator).
        .testTarget(
            name: "GcCommentsTests",
            dependencies: ["GcComments"],
            path: "Tests/GcCommentsTests"
        ),
    ]
)
