// Stub of androidx.webkit.WebMessageCompat 1.12 (compile-time only; see ../../README.md).
package androidx.webkit;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;

/** A message with a String or an ArrayBuffer payload; the accessor must match getType(). */
public class WebMessageCompat {
    public static final int TYPE_STRING = 0;
    public static final int TYPE_ARRAY_BUFFER = 1;

    private final int type;
    private final String data;
    private final byte[] arrayBuffer;

    public WebMessageCompat(@Nullable String data) {
        this.type = TYPE_STRING;
        this.data = data;
        this.arrayBuffer = null;
    }

    public WebMessageCompat(@NonNull byte[] arrayBuffer) {
        this.type = TYPE_ARRAY_BUFFER;
        this.data = null;
        this.arrayBuffer = arrayBuffer;
    }

    public int getType() {
        return type;
    }

    /** As documented: throws IllegalStateException unless getType() is TYPE_STRING. */
    @Nullable
    public String getData() {
        checkType(TYPE_STRING);
        return data;
    }

    /** As documented: throws IllegalStateException unless getType() is TYPE_ARRAY_BUFFER. */
    @NonNull
    public byte[] getArrayBuffer() {
        checkType(TYPE_ARRAY_BUFFER);
        return arrayBuffer;
    }

    private void checkType(int expected) {
        if (type != expected) {
            throw new IllegalStateException("Wrong data accessor type detected. "
                    + (type == TYPE_STRING ? "String" : "ArrayBuffer") + " expected, but got "
                    + (expected == TYPE_STRING ? "String" : "ArrayBuffer"));
        }
    }
}
