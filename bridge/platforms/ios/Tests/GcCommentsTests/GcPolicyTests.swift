import Foundation
import XCTest
@testable import GcComments

/// The kit's pure policies (Foundation only): `swift test` runs these on Linux and macOS, and
/// they hold the same rules as the Android kit's JVM tests.
final class GcPolicyTests: XCTestCase {
    private let widget = "https://comments.example"

    func testThreeRecoveriesAMinuteThenTheErrorView() {
        let guardian = GcCrashGuard()
        XCTAssertEqual(guardian.limit, 3)
        XCTAssertEqual(guardian.window, 60)
        let outcomes = (0..<6).map { GcRecoveryPolicy.decide(guardian, now: Double($0) * 2, foreground: true, visible: true) }
        XCTAssertEqual(outcomes, [.now, .now, .now, .giveUp, .giveUp, .giveUp])
        XCTAssertTrue(guardian.allow(now: 60)) // the first left the window
        guardian.reset()
        XCTAssertTrue(guardian.allow(now: 61))
    }

    func testRecoveryWaitsForTheForegroundAndTheScreen() {
        let guardian = GcCrashGuard(limit: 1)
        XCTAssertEqual(GcRecoveryPolicy.decide(guardian, now: 0, foreground: false, visible: true), .deferred)
        XCTAssertEqual(GcRecoveryPolicy.decide(guardian, now: 0, foreground: true, visible: false), .deferred)
        XCTAssertEqual(GcRecoveryPolicy.decide(guardian, now: 1, foreground: true, visible: true), .now)
        XCTAssertEqual(GcRecoveryPolicy.decide(guardian, now: 2, foreground: true, visible: true), .giveUp)
    }

    func testLinks() {
        func nav(_ url: String, main: Bool = true, tap: Bool = true) -> GcLinkAction {
            GcLinkPolicy.forNavigation(URL(string: url), widgetOrigin: widget, isMainFrame: main, userTapped: tap)
        }
        XCTAssertEqual(nav("https://comments.example/t/1"), .stay)
        XCTAssertEqual(nav("HTTPS://Comments.Example:443/x"), .stay)
        XCTAssertEqual(nav("https://news.example/a"), .browser)
        XCTAssertEqual(nav("https://video.example/embed", main: false), .stay)
        XCTAssertEqual(nav("mailto:a@b.example"), .os)
        XCTAssertEqual(nav("tel:+15551234"), .os)
        XCTAssertEqual(nav("tel:+15551234", tap: false), .block)
        XCTAssertEqual(nav("javascript:alert(1)"), .block)
        XCTAssertEqual(nav("file:///etc/passwd"), .block)
        XCTAssertEqual(nav("about:blank"), .stay)
        XCTAssertEqual(nav("about:srcdoc", main: false), .stay)
        XCTAssertEqual(nav("tel:+15551234", main: false), .os)
    }

    func testNewWindows() {
        let own = URL(string: "https://comments.example/profile/7")
        XCTAssertEqual(GcLinkPolicy.forNewWindow(own, widgetOrigin: widget, userTapped: true), .stay)
        XCTAssertEqual(GcLinkPolicy.forNewWindow(URL(string: "https://author.example/"), widgetOrigin: widget, userTapped: true), .browser)
        XCTAssertEqual(GcLinkPolicy.forNewWindow(own, widgetOrigin: widget, userTapped: false), .block)
    }

    func testOrigins() {
        XCTAssertEqual(GcOrigin.of(URL(string: "https://A.example:443/p?q#f")), "https://a.example")
        XCTAssertEqual(GcOrigin.of(URL(string: "http://a.example:8080")), "http://a.example:8080")
        XCTAssertNil(GcOrigin.of(URL(string: "mailto:a@b.example")))
        XCTAssertEqual(GcOrigin.of(scheme: "https", host: "comments.example", port: 0), widget)
    }

    func testDialogs() {
        XCTAssertTrue(GcChromePolicy.showDialog(origin: widget, widgetOrigin: widget, presentable: true))
        XCTAssertFalse(GcChromePolicy.showDialog(origin: "https://ads.example", widgetOrigin: widget, presentable: true))
        XCTAssertFalse(GcChromePolicy.showDialog(origin: widget, widgetOrigin: widget, presentable: false))
        XCTAssertEqual(GcChromePolicy.confirmed(.confirm), GcDialogAnswer(confirmed: true, text: nil))
        XCTAssertEqual(GcChromePolicy.dismissed(.confirm), GcDialogAnswer(confirmed: false, text: nil))
        XCTAssertEqual(GcChromePolicy.confirmed(.prompt, text: nil), GcDialogAnswer(confirmed: true, text: ""))
        XCTAssertEqual(GcChromePolicy.dismissed(.alert), GcDialogAnswer(confirmed: true, text: nil))
        XCTAssertEqual(GcChromePolicy.dialogTitle(origin: "https://comments.example:8443"), "comments.example:8443")
        XCTAssertEqual(GcChromePolicy.dialogTitle(origin: nil), "This page")
    }

    func testLoadErrors() {
        XCTAssertFalse(GcChromePolicy.isLoadError(domain: "NSURLErrorDomain", code: -999)) // NSURLErrorCancelled
        XCTAssertFalse(GcChromePolicy.isLoadError(domain: "WebKitErrorDomain", code: 102))
        XCTAssertTrue(GcChromePolicy.isLoadError(domain: "NSURLErrorDomain", code: -1009)) // not connected
        XCTAssertTrue(GcChromePolicy.isErrorStatus(503))
        XCTAssertFalse(GcChromePolicy.isErrorStatus(200))
    }

    func testUserAgentCarriesTheBridgeVersionOnce() {
        XCTAssertEqual(GcUserAgent.token, "gc-bridge/\(GcBridgePin.version)")
        let once = GcUserAgent.withSuffix("Mobile/15E148")
        XCTAssertEqual(once, "Mobile/15E148 gc-bridge/\(GcBridgePin.version)")
        XCTAssertEqual(GcUserAgent.withSuffix(once), once)
        XCTAssertEqual(GcUserAgent.withSuffix(nil), GcUserAgent.token)
    }
}
