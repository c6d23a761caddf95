// A screen of an app: the thread's comments, signed in as the app's user.
// Installed as an app installs the kit: npm pack in ../, then npm install (see README.md).
import { useRef } from 'react';
import { Button, View } from 'react-native';
import { GcCommentsWebView, BRIDGE_VERSION } from '@gc-bridge/react-native-kit';
import type { GcCommentsWebViewHandle, GcWidgetEvent } from '@gc-bridge/react-native-kit';

interface Session {
  userId: string;
  token: string;
}

export function CommentsScreen({ gcUrl, session }: { gcUrl: string; session: Session | null }) {
  const comments = useRef<GcCommentsWebViewHandle>(null);
  return (
    <View style={{ flex: 1 }}>
      <GcCommentsWebView
        ref={comments}
        gcUrl={gcUrl}
        apiPublicKey="pk_example"
        appUser={session?.userId ?? null}
        fetchSsoData={async () => {
          if (!session) return null;
          const res = await fetch('https://api.example.com/sso-data', {
            headers: { Authorization: `Bearer ${session.token}` },
          });
          return res.ok ? ((await res.json()) as { ssoData: string }).ssoData : null;
        }}
        onWidgetEvent={(event: GcWidgetEvent) => console.log(`widget ${event.name} (bridge ${BRIDGE_VERSION})`)}
        onContentProcessGone={() => console.warn('web content process gone: the kit reloaded the widget')}
        style={{ flex: 1 }}
      />
      <Button title="Refresh sign-in" onPress={() => void comments.current?.refreshSso()} />
    </View>
  );
}
