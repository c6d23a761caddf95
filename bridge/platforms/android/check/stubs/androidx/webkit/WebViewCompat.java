// Stub of androidx.webkit.WebViewCompat 1.12 (compile-time only; see ../../README.md).
package androidx.webkit;

import android.net.Uri;
import android.webkit.WebView;

import androidx.annotation.NonNull;

import java.util.Set;

public class WebViewCompat {
    private WebViewCompat() {
    }

    public interface WebMessageListener {
        void onPostMessage(@NonNull WebView view, @NonNull WebMessageCompat message,
                @NonNull Uri sourceOrigin, boolean isMainFrame,
                @NonNull JavaScriptReplyProxy replyProxy);
    }

    /** Throws IllegalArgumentException for a malformed origin rule, as documented. */
    public static void addWebMessageListener(@NonNull WebView webView, @NonNull String jsObjectName,
            @NonNull Set<String> allowedOriginRules, @NonNull WebMessageListener listener) {
        checkRules(allowedOriginRules);
        throw new UnsupportedOperationException("androidx.webkit stub: compile-time only");
    }

    public static void removeWebMessageListener(@NonNull WebView webView,
            @NonNull String jsObjectName) {
        throw new UnsupportedOperationException("androidx.webkit stub: compile-time only");
    }

    /** Throws IllegalArgumentException for a malformed origin rule, as documented. */
    @NonNull
    public static ScriptHandler addDocumentStartJavaScript(@NonNull WebView webView,
            @NonNull String script, @NonNull Set<String> allowedOriginRules) {
        checkRules(allowedOriginRules);
        throw new UnsupportedOperationException("androidx.webkit stub: compile-time only");
    }

    /**
     * The documented form of a rule: "*", or scheme "://" host [":" port] with no path, where
     * the host may start with "*." (http and https only for a wildcard host).
     */
    static void checkRules(Set<String> rules) {
        for (String rule : rules) {
            if (rule == null || !(rule.equals("*") || rule.matches(
                    "[a-zA-Z][a-zA-Z0-9+.-]*://(\\*\\.)?[^/:*?#\\s]+(:[0-9]{1,5})?"))) {
                throw new IllegalArgumentException("allowedOriginRules " + rule + " is invalid");
            }
        }
    }
}
