/**
 * Pure helpers of the gc-bridge protocol (no React, no native code), so that
 * they can be unit-tested and reused by other WebView wrappers.
 */

/** The widget events of the service (docs/explanation/service.md#the-widgets-events); other names pass through as GcOtherEvent. */
export type GcWidgetEvent =
  | { name: 'gc-ready' }
  | { name: 'gc-loaded'; count?: number }
  | { name: 'gc-sso-auth' }
  | { name: 'gc-sso-conflict'; username?: string }
  | GcOtherEvent;

/** A named message the kit does not act on (a newer widget may send more). */
export interface GcOtherEvent {
  name: string;
  [field: string]: unknown;
}

/** Largest message accepted from the WebView, as bridge.js forwards at most 64 KiB. */
export const MAX_MESSAGE_CHARS = 65536;

/**
 * `scheme://host[:port]` of an absolute http(s) URL, lower-cased, default port
 * dropped; null for anything else. Written by hand because React Native's URL
 * polyfill does not implement `origin` on every version.
 */
export function originOf(url: string | undefined | null): string | null {
  if (typeof url !== 'string') {
    return null;
  }
  const match = /^(https?):\/\/([^/?#@]+)(?:[/?#]|$)/i.exec(url);
  if (!match) {
    return null;
  }
  const scheme = match[1].toLowerCase();
  let host = match[2].toLowerCase();
  if ((scheme === 'https' && host.endsWith(':443')) || (scheme === 'http' && host.endsWith(':80'))) {
    host = host.slice(0, host.lastIndexOf(':'));
  }
  return `${scheme}://${host}`;
}

/** The widget event in a bridge message, or null if the string is not one. */
export function parseBridgeMessage(data: unknown): GcWidgetEvent | null {
  if (typeof data !== 'string' || data.length > MAX_MESSAGE_CHARS) {
    return null;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return null;
  }
  const name = (parsed as { name?: unknown }).name;
  return typeof name === 'string' ? (parsed as GcWidgetEvent) : null;
}

/** gc_url with `api_public_key` appended (docs/explanation/service.md#loading-the-widget); without a key the widget ignores SSO. */
export function withApiPublicKey(gcUrl: string, apiPublicKey: string | undefined): string {
  if (!apiPublicKey) {
    return gcUrl;
  }
  const separator = gcUrl.includes('?') ? '&' : '?';
  return `${gcUrl}${separator}api_public_key=${encodeURIComponent(apiPublicKey)}`;
}

/**
 * JavaScript that calls gcSsoLogin with ssoData as a JSON string literal: data,
 * never code. The trailing `true;` is what react-native-webview asks for on iOS.
 */
export function ssoLoginScript(ssoData: string): string {
  return `window.gcSsoLogin && window.gcSsoLogin(${JSON.stringify(ssoData)});\ntrue;`;
}

/** JavaScript that calls gcSsoLogout. */
export function ssoLogoutScript(): string {
  return 'window.gcSsoLogout && window.gcSsoLogout();\ntrue;';
}
