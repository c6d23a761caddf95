/**
 * GcCommentsWebView: the hosted comment widget in react-native-webview, with
 * gc-bridge bridge.js installed and the SSO loop of spec 5.1 / 6.2.
 *
 * App -> Web (injection): bridge.js through `injectedJavaScriptBeforeContentLoaded`
 * (and again through `injectedJavaScript`, a no-op when already installed);
 * `gcSsoLogin(ssoData)` / `gcSsoLogout()` through `injectJavaScript`.
 * Web -> App (messages): bridge.js calls `window.ReactNativeWebView.postMessage`;
 * `onMessage` checks the sender's origin, parses the JSON and acts on `name`.
 */
import { forwardRef, useCallback, useEffect, useImperativeHandle, useMemo, useRef } from 'react';
import { Linking } from 'react-native';
import type { StyleProp, ViewStyle } from 'react-native';
import { WebView } from 'react-native-webview';
import type { WebViewMessageEvent, WebViewNavigation } from 'react-native-webview';
import type { ShouldStartLoadRequest } from 'react-native-webview/lib/WebViewTypes';

import { BRIDGE_SOURCE } from './bridgeSource';
import {
  originOf,
  parseBridgeMessage,
  ssoLoginScript,
  ssoLogoutScript,
  withApiPublicKey,
} from './protocol';
import type { GcWidgetEvent } from './protocol';

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
  /** Every widget event, after the kit acted on it (for analytics or a timeline). */
  onWidgetEvent?: (event: GcWidgetEvent) => void;
  /** Failures of fetchSsoData / resolveConflict (the widget stays signed out). */
  onError?: (error: unknown) => void;
  style?: StyleProp<ViewStyle>;
}

/** Imperative handle: `ref.current.refreshSso()` after the app's own login, `logout()` on sign-out. */
export interface GcCommentsWebViewHandle {
  refreshSso(): Promise<void>;
  logout(): void;
}

const BRIDGE_SCRIPT = `${BRIDGE_SOURCE}\ntrue;`;

export const GcCommentsWebView = forwardRef<GcCommentsWebViewHandle, GcCommentsWebViewProps>(
  function GcCommentsWebView(props, ref) {
    const { gcUrl, apiPublicKey, fetchSsoData, resolveConflict, appUser, onWidgetEvent, onError, style } =
      props;
    const webView = useRef<WebView>(null);
    const widgetOrigin = useMemo(() => originOf(gcUrl), [gcUrl]);
    const source = useMemo(() => ({ uri: withApiPublicKey(gcUrl, apiPublicKey) }), [gcUrl, apiPublicKey]);
    // URL of the page now in the WebView: ssoData is only ever injected into the widget's origin.
    const pageUrl = useRef<string | null>(null);
    // Bumped on every login-state change so that a slow fetch for a previous user is discarded.
    const generation = useRef(0);
    const inFlight = useRef<Promise<void> | null>(null);

    const onWidgetPage = useCallback(
      () => widgetOrigin !== null && originOf(pageUrl.current) === widgetOrigin,
      [widgetOrigin],
    );

    const inject = useCallback(
      (ssoData: string | null, forGeneration: number) => {
        if (ssoData === null || forGeneration !== generation.current || !onWidgetPage()) {
          return;
        }
        webView.current?.injectJavaScript(ssoLoginScript(ssoData));
      },
      [onWidgetPage],
    );

    const refreshSso = useCallback((): Promise<void> => {
      if (!fetchSsoData || !apiPublicKey) {
        return Promise.resolve();
      }
      // gc-ready and gc-loaded arrive close together: one fetch serves both.
      if (inFlight.current) {
        return inFlight.current;
      }
      const mine = generation.current;
      const run = fetchSsoData()
        .then((ssoData) => inject(ssoData, mine))
        .catch((error: unknown) => onError?.(error))
        .finally(() => {
          inFlight.current = null;
        });
      inFlight.current = run;
      return run;
    }, [fetchSsoData, apiPublicKey, inject, onError]);

    const logout = useCallback(() => {
      generation.current += 1;
      if (onWidgetPage()) {
        webView.current?.injectJavaScript(ssoLogoutScript());
      }
    }, [onWidgetPage]);

    useImperativeHandle(ref, () => ({ refreshSso, logout }), [refreshSso, logout]);

    // The app's own login state changed: re-inject, or sign the widget out.
    const firstUser = useRef(true);
    useEffect(() => {
      if (firstUser.current) {
        firstUser.current = false;
        return;
      }
      if (appUser) {
        generation.current += 1;
        inFlight.current = null;
        void refreshSso();
      } else {
        logout();
      }
    }, [appUser]); // eslint-disable-line react-hooks/exhaustive-deps

    const onMessage = useCallback(
      (event: WebViewMessageEvent) => {
        const { data, url } = event.nativeEvent;
        // Only the widget's own origin speaks for the widget.
        if (widgetOrigin === null || originOf(url) !== widgetOrigin) {
          return;
        }
        const widgetEvent = parseBridgeMessage(data);
        if (!widgetEvent) {
          return;
        }
        pageUrl.current = url;
        switch (widgetEvent.name) {
          case 'gc-ready':
          case 'gc-loaded':
          case 'gc-sso-auth':
            void refreshSso();
            break;
          case 'gc-sso-conflict': {
            const username = typeof widgetEvent.username === 'string' ? widgetEvent.username : '';
            if (resolveConflict) {
              const mine = generation.current;
              resolveConflict(username)
                .then((ssoData) => inject(ssoData, mine))
                .catch((error: unknown) => onError?.(error));
            }
            break;
          }
          default:
            break;
        }
        onWidgetEvent?.(widgetEvent);
      },
      [widgetOrigin, refreshSso, resolveConflict, inject, onError, onWidgetEvent],
    );

    const onNavigationStateChange = useCallback((navigation: WebViewNavigation) => {
      pageUrl.current = navigation.url;
    }, []);

    // Links in comments leave the widget: open them in the system browser.
    const onShouldStartLoadWithRequest = useCallback(
      (request: ShouldStartLoadRequest) => {
        if (request.isTopFrame === false || originOf(request.url) === widgetOrigin) {
          return true;
        }
        if (/^https?:/i.test(request.url)) {
          void Linking.openURL(request.url);
        }
        return false;
      },
      [widgetOrigin],
    );

    return (
      <WebView
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
        onNavigationStateChange={onNavigationStateChange}
        onShouldStartLoadWithRequest={onShouldStartLoadWithRequest}
        setSupportMultipleWindows={false}
      />
    );
  },
);
