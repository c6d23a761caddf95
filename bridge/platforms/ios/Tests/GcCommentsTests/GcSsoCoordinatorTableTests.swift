import Foundation
import XCTest
@testable import GcComments

/// Runs the app-side protocol table (`GcComments/app-protocol.json`, the copy shipped with the
/// kit) against `GcSsoCoordinator`: each case starts fresh coordinators (one per "view") from its
/// setup, feeds each step's input and expects exactly the step's effects, in order. No Swift
/// compiler runs on gc-bridge's own machines; run this in Xcode (Product > Test on an iOS
/// simulator) or with `xcodebuild test -scheme GcComments -destination 'platform=iOS Simulator,name=iPhone 15'`.
final class GcSsoCoordinatorTableTests: XCTestCase {
    private static var tableURL: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent() // GcCommentsTests
            .deletingLastPathComponent() // Tests
            .deletingLastPathComponent() // ios
            .appendingPathComponent("GcComments")
            .appendingPathComponent("app-protocol.json")
    }

    func testEveryCaseOfTheTable() throws {
        let data = try Data(contentsOf: Self.tableURL)
        let table = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let defaults = try XCTUnwrap(table["defaults"] as? [String: Any])
        let cases = try XCTUnwrap(table["cases"] as? [[String: Any]])
        XCTAssertGreaterThan(cases.count, 40)
        for testCase in cases {
            try run(testCase, defaults: defaults)
        }
    }

    private func run(_ testCase: [String: Any], defaults: [String: Any]) throws {
        let name = testCase["name"] as? String ?? "?"
        var setup = defaults
        for (key, value) in testCase["setup"] as? [String: Any] ?? [:] {
            setup[key] = value
        }
        var views: [String: GcSsoCoordinator] = [:]
        let steps = try XCTUnwrap(testCase["steps"] as? [[String: Any]])
        for (index, step) in steps.enumerated() {
            let view = step["view"] as? String ?? "a"
            let coordinator = views[view] ?? GcSsoCoordinator(
                user: setup["user"] as? String,
                sso: setup["sso"] as? Bool ?? true,
                triggers: Set(setup["triggers"] as? [String] ?? []),
                keepWidgetSession: setup["keep_widget_session"] as? Bool ?? false
            )
            views[view] = coordinator
            let input = try XCTUnwrap(step["in"] as? [String: Any])
            let got = try apply(coordinator, input).map(\.tableEntry) as NSArray
            let expected = try XCTUnwrap(step["out"] as? NSArray)
            XCTAssertTrue(got.isEqual(expected), "\(name) step \(index + 1): expected \(expected), got \(got)")
        }
    }

    private func apply(_ c: GcSsoCoordinator, _ input: [String: Any]) throws -> [GcSsoEffect] {
        switch input["in"] as? String {
        case "message":
            let pad = String(repeating: " ", count: input["pad"] as? Int ?? 0)
            return c.message((input["data"] as? String ?? "") + pad, fromWidget: input["from_widget"] as? Bool ?? true)
        case "page-finished":
            return c.pageFinished()
        case "app-login":
            return c.appLogin(try XCTUnwrap(input["user"] as? String))
        case "app-logout":
            return c.appLogout()
        case "fetch-result":
            return c.fetchResult(try XCTUnwrap(input["fetch"] as? Int), ssoData: input["ssoData"] as? String,
                                 error: input["error"] as? String)
        case "conflict-result":
            return c.conflictResult(try XCTUnwrap(input["conflict"] as? Int), ssoData: input["ssoData"] as? String,
                                    error: input["error"] as? String)
        case "relaunch":
            return c.relaunch()
        case "page-started":
            return c.pageStarted()
        case "restored":
            return c.restored()
        case "content-terminated":
            return c.contentTerminated()
        case "resume":
            return c.resume(seconds: try XCTUnwrap(input["seconds"] as? Double))
        default:
            XCTFail("unknown input \(String(describing: input["in"]))")
            return []
        }
    }
}
