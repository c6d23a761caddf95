export { GcCommentsWebView } from './GcCommentsWebView';
export type { GcCommentsWebViewHandle, GcCommentsWebViewProps } from './GcCommentsWebView';
export {
  MAX_MESSAGE_CHARS,
  originOf,
  parseBridgeMessage,
  ssoLoginScript,
  ssoLogoutScript,
  withApiPublicKey,
} from './protocol';
export type { GcOtherEvent, GcWidgetEvent } from './protocol';
export { BRIDGE_SHA256, BRIDGE_SOURCE, BRIDGE_VERSION } from './bridgeSource';
export {
  ANDROID_TRIGGERS,
  APP_PROTOCOL,
  DEFAULT_TRIGGERS,
  KEEP_WIDGET_SESSION,
  SSO_LIFETIME_SECONDS,
  SsoCoordinator,
  signsOutAtReady,
  triggersFor,
} from './coordinator';
export { GcBridgePinError, sha256Hex, utf8Bytes, verifiedBridgeSource } from './bridgePin';
export {
  DOCUMENT_LOADED_MESSAGE,
  DOCUMENT_MESSAGE,
  LIFECYCLE_SCRIPT,
  RESTORED_MESSAGE,
  awayAfter,
  lifecycleEffects,
  monotonicNow,
} from './lifecycle';
export type { Away } from './lifecycle';
export type { SsoCoordinatorOptions, SsoEffect } from './coordinator';
export { GcErrorView, ERROR_MESSAGE, RETRY_LABEL } from './GcErrorView';
export type { GcErrorViewProps } from './GcErrorView';
export { CrashGuard, DEFAULT_CRASH_LIMIT, DEFAULT_CRASH_WINDOW_MS, decideRecovery } from './crashGuard';
export type { Recovery } from './crashGuard';
export {
  KIT_OWNED_PROPS,
  USER_AGENT_TOKEN,
  debuggingEnabled,
  isErrorStatus,
  isLoadError,
  linkAction,
  passThrough,
  withUserAgentToken,
} from './webViewProps';
export type { GcLoadError, KitOwnedProp, LinkAction } from './webViewProps';
