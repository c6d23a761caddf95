/**
 * The kit's error view: a message and a Retry button, shown instead of the WebView after a load
 * error (or too many crashes in a minute). Replace it with `renderError`.
 */
import { Pressable, StyleSheet, Text, View } from 'react-native';
import type { StyleProp, ViewStyle } from 'react-native';

import type { GcLoadError } from './webViewProps';

export const ERROR_MESSAGE = 'Comments could not be loaded.';
export const RETRY_LABEL = 'Retry';

export interface GcErrorViewProps {
  error: GcLoadError;
  retry: () => void;
  style?: StyleProp<ViewStyle>;
}

export function GcErrorView({ retry, style }: GcErrorViewProps) {
  return (
    <View style={[styles.box, style]}>
      <Text style={styles.message}>{ERROR_MESSAGE}</Text>
      <Pressable accessibilityRole="button" onPress={retry} style={styles.button}>
        <Text style={styles.retry}>{RETRY_LABEL}</Text>
      </Pressable>
    </View>
  );
}

const styles = StyleSheet.create({
  box: { flex: 1, alignItems: 'center', justifyContent: 'center', padding: 24 },
  message: { textAlign: 'center', marginBottom: 12 },
  button: { paddingHorizontal: 16, paddingVertical: 8 },
  retry: { fontWeight: '600' },
});
