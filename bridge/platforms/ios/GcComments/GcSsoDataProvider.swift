import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking // URLSession on Linux (swift build / swift test of the kit's core)
#endif

/// Where the app gets ssoData: its own backend, authenticated with the app's own session.
///
/// ssoData travels only in a response body and in `gcSsoLogin(...)`: never in a URL
/// (query, path or fragment), never in logs, never cached. It expires after about
/// 5 minutes, so it is fetched fresh on every gc-ready / gc-loaded / gc-sso-auth.
public protocol GcSsoDataProvider: AnyObject {
    /// Fresh ssoData for the signed-in app user, or nil when the app user is signed out.
    func fetchSsoData() async throws -> String?

    /// gc-sso-conflict: let the user choose another username, have the backend issue
    /// ssoData with it and return that (nil to give up).
    func resolveConflict(username: String) async throws -> String?
}

public extension GcSsoDataProvider {
    func resolveConflict(username: String) async throws -> String? { nil }
}

/// A provider for the sample backend of gc-bridge (`GET /sso-data` -> `{"ssoData": "..."}`,
/// `Cache-Control: no-store`), authenticated with the app's bearer token.
public final class BackendSsoDataProvider: GcSsoDataProvider {
    public enum FetchError: Error, Equatable {
        case status(Int)
    }

    private struct Body: Decodable {
        let ssoData: String
    }

    private let endpoint: URL
    private let session: URLSession
    private let bearerToken: () -> String?

    /// - Parameters:
    ///   - endpoint: your backend's ssoData route, e.g. `https://api.example.com/sso-data`.
    ///   - bearerToken: the app's own session token, nil when signed out.
    public init(endpoint: URL, session: URLSession = .shared, bearerToken: @escaping () -> String?) {
        self.endpoint = endpoint
        self.session = session
        self.bearerToken = bearerToken
    }

    public func fetchSsoData() async throws -> String? {
        guard let token = bearerToken() else {
            return nil
        }
        var request = URLRequest(url: endpoint)
        request.httpMethod = "GET"
        request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await load(request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if status == 401 || status == 403 {
            return nil
        }
        guard status == 200 else {
            throw FetchError.status(status)
        }
        return try JSONDecoder().decode(Body.self, from: data).ssoData
    }

    private func load(_ request: URLRequest) async throws -> (Data, URLResponse) {
        #if canImport(FoundationNetworking)
        // swift-corelibs-foundation: the completion-handler API, which every version has
        return try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let response, error == nil {
                    continuation.resume(returning: (data ?? Data(), response))
                } else {
                    continuation.resume(throwing: error ?? URLError(.badServerResponse))
                }
            }.resume()
        }
        #else
        return try await session.data(for: request)
        #endif
    }
}
