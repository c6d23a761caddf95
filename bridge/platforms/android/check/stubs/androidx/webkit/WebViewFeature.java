// Stub of androidx.webkit.WebViewFeature 1.12 (compile-time only; see ../../README.md).
package androidx.webkit;

import androidx.annotation.NonNull;

public class WebViewFeature {
    public static final String WEB_MESSAGE_LISTENER = "WEB_MESSAGE_LISTENER";
    public static final String DOCUMENT_START_SCRIPT = "DOCUMENT_START_SCRIPT";
    public static final String WEB_MESSAGE_ARRAY_BUFFER = "WEB_MESSAGE_ARRAY_BUFFER";

    private WebViewFeature() {
    }

    /** The stub has no WebView behind it: no feature is supported. */
    public static boolean isFeatureSupported(@NonNull String feature) {
        return false;
    }
}
