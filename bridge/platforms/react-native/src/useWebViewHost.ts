/**
 * The WebView host around the SSO loop: the `generation` whose change remounts the WebView, the
 * load error shown instead of it (until Retry), and the recovery from a dead web content process,
 * deferred while the app is not active and bounded by the crash guard (crashGuard.ts). The
 * decisions are webViewProps.ts's and crashGuard.ts's; GcCommentsWebView.tsx keeps the SSO loop.
 */
import { useCallback, useRef, useState } from 'react';
import type { MutableRefObject } from 'react';
import { AppState } from 'react-native';
import type { WebViewErrorEvent, WebViewHttpErrorEvent } from 'react-native-webview/lib/WebViewTypes';

import { CrashGuard, decideRecovery } from './crashGuard';
import { isErrorStatus, isLoadError, isWidgetPage } from './webViewProps';
import type { GcLoadError } from './webViewProps';

export interface WebViewHostOptions {
  widgetOrigin: string | null;
  /** The URL of the page now in the WebView (cleared on a remount). */
  pageUrl: MutableRefObject<string | null>;
  /** The latest props: `onLoadError`, `now`. */
  latest: MutableRefObject<{ onLoadError?: (error: GcLoadError, retry: () => void) => void; now?: () => number }>;
}

export interface WebViewHost {
  /** The WebView's `key`: a new value remounts it (a dead Android WebView cannot be reused). */
  generation: number;
  /** Shown instead of the WebView until `retry`. */
  loadError: GcLoadError | null;
  retry: () => void;
  /** The web content process died: remount now, once the app is active, or show the error view. */
  contentGone: () => void;
  /** `AppState` is `active` again: a deferred remount. */
  resumed: () => void;
  /** react-native-webview's `onError` / `onHttpError`. */
  onPageError: (event: WebViewErrorEvent) => void;
  onPageHttpError: (event: WebViewHttpErrorEvent) => void;
}

export function useWebViewHost({ widgetOrigin, pageUrl, latest }: WebViewHostOptions): WebViewHost {
  const [generation, setGeneration] = useState(0);
  const [loadError, setLoadError] = useState<GcLoadError | null>(null);
  const crashGuard = useRef(new CrashGuard());
  const recoveryPending = useRef(false);

  const remount = useCallback(() => {
    pageUrl.current = null;
    setGeneration((value) => value + 1);
  }, [pageUrl]);

  const retry = useCallback(() => {
    crashGuard.current.reset();
    recoveryPending.current = false;
    setLoadError(null);
    remount();
  }, [remount]);

  const failed = useCallback(
    (error: GcLoadError) => {
      latest.current.onLoadError?.(error, retry);
      setLoadError(error);
    },
    [latest, retry],
  );

  const resumed = useCallback(() => {
    if (!recoveryPending.current) {
      return;
    }
    const clock = latest.current.now ?? Date.now;
    switch (decideRecovery(crashGuard.current, clock(), AppState.currentState === 'active')) {
      case 'now':
        recoveryPending.current = false;
        remount();
        break;
      case 'give-up':
        recoveryPending.current = false;
        failed({ url: pageUrl.current, crashLoop: true, description: 'the web content process died too often' });
        break;
      default: // 'defer': AppState 'active' tries again
        break;
    }
  }, [failed, latest, pageUrl, remount]);

  const contentGone = useCallback(() => {
    recoveryPending.current = true;
    resumed();
  }, [resumed]);

  const onPageError = useCallback(
    (event: WebViewErrorEvent) => {
      const { url, code, description, domain } = event.nativeEvent;
      if (isLoadError(domain, code) && isWidgetPage(url, widgetOrigin)) {
        failed({ url, code, description, domain });
      }
    },
    [widgetOrigin, failed],
  );

  const onPageHttpError = useCallback(
    (event: WebViewHttpErrorEvent) => {
      const { url, statusCode, description } = event.nativeEvent;
      if (isErrorStatus(statusCode) && isWidgetPage(url, widgetOrigin)) {
        failed({ url, httpStatus: statusCode, description });
      }
    },
    [widgetOrigin, failed],
  );

  return { generation, loadError, retry, contentGone, resumed, onPageError, onPageHttpError };
}
