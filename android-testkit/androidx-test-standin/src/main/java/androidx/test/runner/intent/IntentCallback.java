package androidx.test.runner.intent;

import android.content.Intent;

/** Notified of every Intent an Activity start was requested with. */
public interface IntentCallback {
  void onIntentSent(Intent intent);
}
