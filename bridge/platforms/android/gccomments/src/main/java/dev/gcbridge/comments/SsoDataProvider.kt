package dev.gcbridge.comments

import org.json.JSONObject
import java.net.HttpURLConnection
import java.net.URL
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext

/**
 * Where the app gets ssoData: its own backend, authenticated with the app's own session.
 *
 * ssoData travels only in a response body and in `gcSsoLogin(...)`: never in a URL (query, path
 * or fragment), never in logs, never cached. It expires after about 5 minutes, so it is fetched
 * fresh on every gc-ready / gc-loaded / gc-sso-auth.
 */
interface SsoDataProvider {
    /** Fresh ssoData for the signed-in app user, or null when the app user is signed out. */
    suspend fun fetchSsoData(): String?

    /**
     * gc-sso-conflict: let the user choose another username, have the backend issue ssoData with
     * it and return that (null to give up).
     */
    suspend fun resolveConflict(username: String): String? = null
}

/**
 * A provider for the sample backend of gc-bridge (`GET /sso-data` -> `{"ssoData": "..."}`,
 * `Cache-Control: no-store`), authenticated with the app's bearer token.
 */
class BackendSsoDataProvider(
    private val endpoint: URL,
    private val bearerToken: () -> String?,
) : SsoDataProvider {
    override suspend fun fetchSsoData(): String? = withContext(Dispatchers.IO) {
        val token = bearerToken() ?: return@withContext null
        val connection = endpoint.openConnection() as HttpURLConnection
        try {
            connection.requestMethod = "GET"
            connection.useCaches = false
            connection.setRequestProperty("Authorization", "Bearer $token")
            connection.setRequestProperty("Accept", "application/json")
            when (val status = connection.responseCode) {
                200 -> {
                    val body = connection.inputStream.bufferedReader().use { it.readText() }
                    JSONObject(body).getString("ssoData")
                }
                401, 403 -> null
                else -> throw IllegalStateException("ssoData endpoint answered HTTP $status")
            }
        } finally {
            connection.disconnect()
        }
    }
}
