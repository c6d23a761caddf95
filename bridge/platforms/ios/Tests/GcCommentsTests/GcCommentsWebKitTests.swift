#if canImport(UIKit) && canImport(WebKit)
import UIKit
import WebKit
import XCTest
@testable import GcComments

/// The kit in a real WKWebView on an iOS simulator: the widget page (ci/widget.html, served by
/// the CI recipe ci/ios-kit.yml) loads, bridge.js is injected and its pin checked, and the
/// page's events reach the app through the `gcBridge` handler; `confirm()` gets the kit's dialog.
/// Skipped unless `GC_TEST_WIDGET_URL` is set (xcodebuild: `TEST_RUNNER_GC_TEST_WIDGET_URL`).
@MainActor
final class GcCommentsWebKitTests: XCTestCase {
    private var window: UIWindow?

    private func widgetURL(_ fragment: String = "") throws -> URL {
        guard let value = ProcessInfo.processInfo.environment["GC_TEST_WIDGET_URL"],
              let url = URL(string: value + fragment) else {
            throw XCTSkip("GC_TEST_WIDGET_URL is not set: serve ci/widget.html as ci/ios-kit.yml does")
        }
        return url
    }

    private func show(_ comments: GcCommentsViewController) {
        let window = UIWindow(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
        window.rootViewController = comments
        window.makeKeyAndVisible()
        self.window = window
    }

    override func tearDown() {
        window = nil
        super.tearDown()
    }

    func testTheWidgetLoadsAndItsEventsReachTheApp() throws {
        let comments = try GcCommentsViewController(gcURL: widgetURL(), apiPublicKey: nil, ssoProvider: nil)
        let ready = expectation(description: "gc-ready, through bridge.js and the gcBridge handler")
        comments.onWidgetEvent = { name, _ in
            if name == "gc-ready" {
                ready.fulfill()
            }
        }
        show(comments)
        wait(for: [ready], timeout: 30)
        let agent = expectation(description: "the user agent carries gc-bridge/<version>")
        comments.webView.evaluateJavaScript("navigator.userAgent") { value, _ in
            XCTAssertTrue((value as? String ?? "").hasSuffix(GcUserAgent.token), "\(String(describing: value))")
            agent.fulfill()
        }
        wait(for: [agent], timeout: 10)
    }

    func testConfirmIsAnsweredByTheKitsDialog() throws {
        let comments = try GcCommentsViewController(gcURL: widgetURL("#confirm"), apiPublicKey: nil, ssoProvider: nil)
        let presenter = AnsweringPresenter()
        comments.dialogPresenter = presenter
        let answered = expectation(description: "the page's confirm() returned what the dialog answered")
        comments.onWidgetEvent = { name, event in
            if name == "gc-test-confirm" {
                XCTAssertEqual(event["answer"] as? Bool, true) // WebKit alone answers false
                answered.fulfill()
            }
        }
        show(comments)
        wait(for: [answered], timeout: 30)
        XCTAssertEqual(presenter.asked, [.confirm])
    }
}

/// Answers every dialog with OK, and records what was asked.
@MainActor
private final class AnsweringPresenter: GcDialogPresenter {
    var asked: [GcDialogKind] = []

    func present(_ kind: GcDialogKind, title: String, message: String, defaultText: String?,
                 from host: UIViewController, answer: @escaping (GcDialogAnswer) -> Void) {
        asked.append(kind)
        answer(GcChromePolicy.confirmed(kind, text: defaultText))
    }
}
#endif
