// Stub of androidx.webkit.JavaScriptReplyProxy 1.12 (compile-time only; see ../../README.md).
package androidx.webkit;

import androidx.annotation.NonNull;

public abstract class JavaScriptReplyProxy {
    public abstract void postMessage(@NonNull String message);

    public abstract void postMessage(@NonNull byte[] arrayBuffer);
}
