/**
 * GcCommentsWebView: the hosted comment widget in react-native-webview, with
 * gc-bridge bridge.js installed and the SSO loop of docs/explanation/service.md#signing-the-apps-user-in.
 *
 * App -> Web (injection): bridge.js through `injectedJavaScriptBeforeContentLoaded`
 * (and again through `injectedJavaScript`, a no-op when already installed);
 * `gcSsoLogin(ssoData)` / `gcSsoLogout()` through `injectJavaScript`.
 * Web -> App (messages): bridge.js calls `window.ReactNativeWebView.postMessage`;
 * `onMessage` checks the sender's origin and hands the string to the SsoCoordinator
 * (coordinator.ts), which decides; this component performs the effects it returns.
 *
 * The WebView's life: a new document (reload, navigation, a remounted WebView) when the lifecycle
 * script next to bridge.js says so -> `pageStarted()` (`onLoadStart` also fires for same-document
 * navigations and, on iOS, before a load that fails: lifecycle.ts); `onLoad` -> `pageFinished()`, a
 * trigger on Android, where bridge.js races the page; a `pageshow` with `persisted` -> `restored()`;
 * `onContentProcessDidTerminate` (iOS) / `onRenderProcessGone` (Android) -> `contentTerminated()`,
 * whose `reload` effect remounts the WebView; `AppState` back to `active` after `background` ->
 * `resume(seconds away)`, on a monotonic clock.
 */
import { forwardRef, useCallback, useEffect, useImperativeHandle, useMemo, useRef } from 'react';
import { AppState, Linking, Platform } from 'react-native';
import type { ReactElement } from 'react';
import type { StyleProp, ViewStyle } from 'react-native';
import { WebView } from 'react-native-webview';
import type { WebViewMessageEvent, WebViewNavigation, WebViewProps } from 'react-native-webview';
import type {
  ShouldStartLoadRequest,
  WebViewNavigationEvent,
  WebViewRenderProcessGoneEvent,
  WebViewTerminatedEvent,
} from 'react-native-webview/lib/WebViewTypes';

import { verifiedBridgeSource } from './bridgePin';
import { SsoCoordinator, triggersFor } from './coordinator';
import type { SsoEffect } from './coordinator';
import { originOf, ssoLoginScript, ssoLogoutScript, withApiPublicKey } from './protocol';
import type { GcWidgetEvent } from './protocol';
import { LIFECYCLE_SCRIPT, awayAfter, lifecycleEffects, monotonicNow } from './lifecycle';
import { GcErrorView } from './GcErrorView';
import { useWebViewHost } from './useWebViewHost';
import { debuggingEnabled, linkAction, passThrough, withUserAgentToken } from './webViewProps';
import type { GcLoadError, KitOwnedProp } from './webViewProps';

export interface GcCommentsWebViewProps {
  /** gc_url from thread-load (GET {base_url}/api/pub/thread-load/, called by your app or backend). */
  gcUrl: string;
  /** The site's SSO public key; appended as `&api_public_key=`. Omit for the service's own accounts. */
  apiPublicKey?: string;
  /**
   * Fresh ssoData from your backend (for example `GET /sso-data` with the app's session), or
   * null when the app user is signed out. Called after gc-ready, gc-loaded and gc-sso-auth:
   * never cache the result, it expires after about 5 minutes.
   */
  fetchSsoData?: () => Promise<string | null>;
  /**
   * gc-sso-conflict: show your resolution UI, have your backend issue ssoData with the
   * corrected username, and return it (null to give up).
   */
  resolveConflict?: (username: string) => Promise<string | null>;
  /**
   * Identity of the app's signed-in user (any string), or null when signed out. When it
   * changes the component re-injects fresh ssoData, or signs the widget out on null.
   */
  appUser?: string | null;
  /**
   * By default, while `appUser` is null a ready widget is signed out: it restores its own stored
   * session (a previous user's) by itself. True keeps that session, for apps that let signed-out
   * users sign in with the service's own accounts; the app's own sign-out still lands.
   */
  keepWidgetSession?: boolean;
  /** Every widget event, after the kit acted on it (for analytics or a timeline). */
  onWidgetEvent?: (event: GcWidgetEvent) => void;
  /** Failures of fetchSsoData / resolveConflict (the widget stays signed out). */
  onError?: (error: unknown) => void;
  /**
   * The web content process died and the kit reloads the widget (iOS
   * `onContentProcessDidTerminate`, Android `onRenderProcessGone`): for logs or analytics.
   */
  onContentProcessGone?: () => void;
  /**
   * Milliseconds clock for the time spent in the background; monotonic by default
   * (`performance.now()`: a wall clock set meanwhile moves `Date.now()`).
   */
  now?: () => number;
  style?: StyleProp<ViewStyle>;
  /**
   * The widget's page failed to load (`onError` / `onHttpError` of its main frame), or its web
   * content process died more than 3 times in a minute; `retry` loads it again.
   */
  onLoadError?: (error: GcLoadError, retry: () => void) => void;
  /** Your error view (default: the kit's `GcErrorView`, a message and a Retry button); return null for none. */
  renderError?: (error: GcLoadError, retry: () => void) => ReactElement | null;
  /** Safari Web Inspector / chrome://inspect (react-native-webview's prop); default: on in `__DEV__` only. */
  webviewDebuggingEnabled?: boolean;
  /** More react-native-webview props (media, zoom, `applicationNameForUserAgent`...), except the kit's own. */
  webViewProps?: Omit<WebViewProps, KitOwnedProp> & { applicationNameForUserAgent?: string };
}

/** Imperative handle: `ref.current.refreshSso()` after the app's own login, `logout()` on sign-out. */
export interface GcCommentsWebViewHandle {
  refreshSso(): Promise<void>;
  logout(): void;
}

// Checked against its pin when the app loads this module: a hand-edited copy fails loudly.
const BRIDGE_SCRIPT = `${verifiedBridgeSource()}\n${LIFECYCLE_SCRIPT}\ntrue;`;

export const GcCommentsWebView = forwardRef<GcCommentsWebViewHandle, GcCommentsWebViewProps>(
  function GcCommentsWebView(props, ref) {
    const { gcUrl, apiPublicKey, fetchSsoData, resolveConflict, appUser, onWidgetEvent, onError, style } =
      props;
    const webView = useRef<WebView>(null);
    const widgetOrigin = useMemo(() => originOf(gcUrl), [gcUrl]);
    const source = useMemo(() => ({ uri: withApiPublicKey(gcUrl, apiPublicKey) }), [gcUrl, apiPublicKey]);
    // URL of the page now in the WebView: ssoData is only ever injected into the widget's origin.
    const pageUrl = useRef<string | null>(null);
    // Every decision (when to fetch, inject, sign out, ask, discard) is the coordinator's;
    // this component only performs the effects it returns.
    const coordinator = useRef<SsoCoordinator | null>(null);
    if (coordinator.current === null) {
      coordinator.current = new SsoCoordinator({
        user: appUser ?? null,
        sso: Boolean(apiPublicKey && fetchSsoData),
        // Android: bridge.js races the page (injectedJavaScriptBeforeContentLoaded is evaluated
        // from onPageStarted), so page finished is a trigger there too.
        triggers: triggersFor(Platform.OS),
        keepWidgetSession: props.keepWidgetSession ?? false,
      });
    }
    // The latest callbacks, for effects that complete after a re-render.
    const { onContentProcessGone, now } = props;
    const callbacks = useRef({ fetchSsoData, resolveConflict, onWidgetEvent, onError, onContentProcessGone, now });
    callbacks.current = { fetchSsoData, resolveConflict, onWidgetEvent, onError, onContentProcessGone, now };
    // The WebView's key (a `reload` effect remounts it: a dead Android WebView cannot be reused),
    // the error view after a load error or a crash loop, and the bounded, deferred recovery.
    const latest = useRef({ onLoadError: props.onLoadError, now });
    latest.current = { onLoadError: props.onLoadError, now };
    const { generation, loadError, retry, contentGone, resumed, onPageError, onPageHttpError } = useWebViewHost({
      widgetOrigin,
      pageUrl,
      latest,
    });

    const onWidgetPage = useCallback(
      () => widgetOrigin !== null && originOf(pageUrl.current) === widgetOrigin,
      [widgetOrigin],
    );

    const perform = useCallback(
      (effects: SsoEffect[], cause?: unknown): void => {
        const c = coordinator.current;
        const app = callbacks.current;
        if (c === null) {
          return;
        }
        for (const effect of effects) {
          switch (effect.do) {
            case 'fetch': {
              const fetchNow = app.fetchSsoData ?? (() => Promise.resolve(null));
              fetchNow()
                .then((ssoData) => perform(c.fetchResult(effect.fetch, ssoData)))
                .catch((error: unknown) => perform(c.fetchResult(effect.fetch, null, String(error)), error));
              break;
            }
            case 'login':
              // The platform check stays as a second line: the main frame must show the widget.
              if (onWidgetPage()) {
                webView.current?.injectJavaScript(ssoLoginScript(effect.ssoData));
              }
              break;
            case 'logout':
              if (onWidgetPage()) {
                webView.current?.injectJavaScript(ssoLogoutScript());
              }
              break;
            case 'ask-conflict': {
              const ask = app.resolveConflict ?? (() => Promise.resolve(null));
              ask(effect.username)
                .then((ssoData) => perform(c.conflictResult(effect.conflict, ssoData)))
                .catch((error: unknown) => perform(c.conflictResult(effect.conflict, null, String(error)), error));
              break;
            }
            case 'error':
              app.onError?.(cause ?? new Error(`${effect.reason}: ${effect.error}`));
              break;
            case 'notify':
              app.onWidgetEvent?.(effect.event as GcWidgetEvent);
              break;
            case 'reload':
              app.onContentProcessGone?.();
              contentGone();
              break;
            default: // 'ignore', 'discard': nothing to do
              break;
          }
        }
      },
      [onWidgetPage, contentGone],
    );

    const refreshSso = useCallback((): Promise<void> => {
      const user = coordinator.current?.user;
      if (user) {
        perform(coordinator.current?.appLogin(user) ?? []);
      }
      return Promise.resolve();
    }, [perform]);

    const logout = useCallback(() => {
      perform(coordinator.current?.appLogout() ?? []);
    }, [perform]);

    useImperativeHandle(ref, () => ({ refreshSso, logout }), [refreshSso, logout]);

    // The app's own login state changed: re-inject, or sign the widget out.
    const firstUser = useRef(true);
    useEffect(() => {
      if (firstUser.current) {
        firstUser.current = false;
        return;
      }
      const c = coordinator.current;
      if (c !== null) {
        perform(appUser ? c.appLogin(appUser) : c.appLogout());
      }
    }, [appUser]); // eslint-disable-line react-hooks/exhaustive-deps

    const onMessage = useCallback(
      (event: WebViewMessageEvent) => {
        const { data, url } = event.nativeEvent;
        // Only the widget's own origin speaks for the widget.
        const fromWidget = widgetOrigin !== null && originOf(url) === widgetOrigin;
        if (fromWidget) {
          pageUrl.current = url;
        }
        const c = coordinator.current;
        if (c === null) {
          return;
        }
        // The lifecycle script's report of a new document or a restore (widget origin only).
        const lifecycle = fromWidget ? lifecycleEffects(c, data) : null;
        perform(lifecycle ?? c.message(data, fromWidget));
      },
      [widgetOrigin, perform],
    );

    // The web content process died (iOS) or the render process is gone (Android; the kit
    // handles it, so react-native-webview returns true and the app lives): reload.
    const onContentProcessDidTerminate = useCallback(
      (_event: WebViewTerminatedEvent) => {
        perform(coordinator.current?.contentTerminated() ?? []);
      },
      [perform],
    );
    const onRenderProcessGone = useCallback(
      (_event: WebViewRenderProcessGoneEvent) => {
        perform(coordinator.current?.contentTerminated() ?? []);
      },
      [perform],
    );

    // Back from the background: a fetch in flight is renewed; after the ssoData lifetime the
    // widget's login is renewed with fresh ssoData.
    useEffect(() => {
      const clock = (): number => (callbacks.current.now ?? monotonicNow)();
      let since: number | null = null;
      const subscription = AppState.addEventListener('change', (state) => {
        if (state === 'active') {
          resumed(); // the host's recovery, deferred while the app was away
        }
        // Only `background` is time away (`inactive`: a Face ID prompt, an incoming call).
        const away = awayAfter(state, since, clock());
        since = away.since;
        if (away.resumedAfter !== null) {
          perform(coordinator.current?.resume(away.resumedAfter) ?? []);
        }
      });
      return () => subscription.remove();
    }, [perform, resumed]);

    const onLoad = useCallback(
      (event: WebViewNavigationEvent) => {
        pageUrl.current = event.nativeEvent.url;
        if (originOf(event.nativeEvent.url) === widgetOrigin) {
          perform(coordinator.current?.pageFinished() ?? []);
        }
      },
      [widgetOrigin, perform],
    );

    const onNavigationStateChange = useCallback((navigation: WebViewNavigation) => {
      pageUrl.current = navigation.url;
    }, []);

    // Links in comments leave the widget (webViewProps.ts linkAction): other pages open in the
    // system browser, mailto: / tel: in the user's apps.
    const onShouldStartLoadWithRequest = useCallback(
      (request: ShouldStartLoadRequest) => {
        const action = linkAction(request.url, widgetOrigin, request.isTopFrame !== false);
        if (action === 'stay') {
          return true;
        }
        if (action !== 'block') {
          Linking.openURL(request.url).catch(() => undefined);
        }
        return false;
      },
      [widgetOrigin],
    );

    if (loadError !== null) {
      if (props.renderError) {
        return props.renderError(loadError, retry);
      }
      return <GcErrorView error={loadError} retry={retry} style={style} />;
    }

    const extra = passThrough(props.webViewProps);

    return (
      <WebView
        {...extra}
        key={generation}
        ref={webView}
        source={source}
        style={style}
        javaScriptEnabled
        domStorageEnabled
        // The widget keeps its session token in localStorage: keep a persistent store.
        incognito={false}
        injectedJavaScriptBeforeContentLoaded={BRIDGE_SCRIPT}
        injectedJavaScriptBeforeContentLoadedForMainFrameOnly
        injectedJavaScript={BRIDGE_SCRIPT}
        injectedJavaScriptForMainFrameOnly
        onMessage={onMessage}
        onLoad={onLoad}
        onContentProcessDidTerminate={onContentProcessDidTerminate}
        onRenderProcessGone={onRenderProcessGone}
        onNavigationStateChange={onNavigationStateChange}
        onShouldStartLoadWithRequest={onShouldStartLoadWithRequest}
        onError={onPageError}
        onHttpError={onPageHttpError}
        setSupportMultipleWindows={false}
        // gc-bridge/<version>: the service and support see which bridge an app runs
        applicationNameForUserAgent={withUserAgentToken(props.webViewProps?.applicationNameForUserAgent)}
        webviewDebuggingEnabled={debuggingEnabled(props.webviewDebuggingEnabled, __DEV__)}
      />
    );
  },
);
