package dev.gcbridge.comments

import android.os.Build
import android.webkit.WebView

/**
 * Carries the app's own customisations from a WebView whose render process died to the one
 * replacing it: the WebView cannot be reused, and whatever the app set on it (in XML, or in
 * code before handing it to the kit) would otherwise be lost. The app's
 * [GcCommentsOptions.configureWebView] runs after this, on every WebView, for anything else.
 */
internal object GcWebViewSettings {
    fun copy(from: WebView, to: WebView) {
        val a = from.settings
        val b = to.settings
        b.userAgentString = a.userAgentString
        b.textZoom = a.textZoom
        b.mediaPlaybackRequiresUserGesture = a.mediaPlaybackRequiresUserGesture
        b.loadWithOverviewMode = a.loadWithOverviewMode
        b.useWideViewPort = a.useWideViewPort
        b.setSupportZoom(a.supportZoom())
        b.builtInZoomControls = a.builtInZoomControls
        b.displayZoomControls = a.displayZoomControls
        b.cacheMode = a.cacheMode
        b.mixedContentMode = a.mixedContentMode
        b.allowFileAccess = a.allowFileAccess
        b.allowContentAccess = a.allowContentAccess
        b.loadsImagesAutomatically = a.loadsImagesAutomatically
        b.blockNetworkImage = a.blockNetworkImage
        b.minimumFontSize = a.minimumFontSize
        b.defaultFontSize = a.defaultFontSize
        b.offscreenPreRaster = a.offscreenPreRaster
        if (Build.VERSION.SDK_INT >= 26) b.safeBrowsingEnabled = a.safeBrowsingEnabled
        if (Build.VERSION.SDK_INT >= 33) b.isAlgorithmicDarkeningAllowed = a.isAlgorithmicDarkeningAllowed
        to.id = from.id
        to.overScrollMode = from.overScrollMode
        to.isVerticalScrollBarEnabled = from.isVerticalScrollBarEnabled
        to.isHorizontalScrollBarEnabled = from.isHorizontalScrollBarEnabled
        to.scrollBarStyle = from.scrollBarStyle
        to.importantForAccessibility = from.importantForAccessibility
        to.contentDescription = from.contentDescription
        to.isFocusable = from.isFocusable
        to.isFocusableInTouchMode = from.isFocusableInTouchMode
    }
}
