// Stub of androidx.webkit.ScriptHandler 1.12 (compile-time only; see ../../README.md).
package androidx.webkit;

public interface ScriptHandler {
    void remove();
}
