package dev.gcbridge.comments

import android.content.Context
import android.view.Gravity
import android.view.View
import android.widget.Button
import android.widget.LinearLayout
import android.widget.TextView

/** Makes the view shown in the WebView's place after a load error; `retry` loads the widget again. */
fun interface GcErrorViewFactory {
    fun create(context: Context, error: GcLoadError, retry: () -> Unit): View
}

/** The kit's error view: a message and a Retry button, centred. Replace it through [GcCommentsOptions.errorView]. */
object GcDefaultErrorView : GcErrorViewFactory {
    const val MESSAGE = "Comments could not be loaded."
    const val RETRY = "Retry"

    override fun create(context: Context, error: GcLoadError, retry: () -> Unit): View {
        val density = context.resources.displayMetrics.density
        val padding = (24 * density).toInt()
        return LinearLayout(context).apply {
            orientation = LinearLayout.VERTICAL
            gravity = Gravity.CENTER
            setPadding(padding, padding, padding, padding)
            addView(TextView(context).apply {
                text = MESSAGE
                gravity = Gravity.CENTER
            })
            addView(Button(context).apply {
                text = RETRY
                setOnClickListener { retry() }
            })
        }
    }
}
