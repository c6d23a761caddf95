// swift-tools-version:5.9
// The gc-bridge iOS kit as a Swift package. In Xcode: File > Add Package Dependencies... and
// point it at this directory (or the repository, path bridge/platforms/ios); in a Package.swift:
//     .package(path: "../gc-bridge/bridge/platforms/ios")
// then depend on the "GcComments" product. bridge.js and the app-side protocol table travel as
// resources of the target (Bundle.module).
//
// The kit's core (coordinator, JSON, scripts, policies) is Foundation only and builds anywhere
// Swift runs: `swift build` / `swift test` on Linux or macOS run the protocol table and the
// policies' tests. The UIKit / WebKit glue sits behind `#if canImport(UIKit) && canImport(WebKit)`
// and builds for iOS (Xcode, xcodebuild; the WebKit test needs a simulator: ci/ios-kit.yml).
import PackageDescription

let package = Package(
    name: "GcComments",
    // macOS only so that `swift build` / `swift test` on a Mac host build the core (async URLSession)
    platforms: [.iOS(.v15), .macOS(.v12)],
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
        // The app-side protocol table against GcSsoCoordinator, the pure policies (any platform),
        // and one test that loads the widget in a real WKWebView (iOS simulator, ci/ios-kit.yml).
        .testTarget(
            name: "GcCommentsTests",
            dependencies: ["GcComments"],
            path: "Tests/GcCommentsTests"
        ),
    ]
)
