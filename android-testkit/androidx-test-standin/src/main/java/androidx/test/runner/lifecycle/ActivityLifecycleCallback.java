package androidx.test.runner.lifecycle;

import android.app.Activity;

/** Notified after an Activity moves to a new {@link Stage}. */
public interface ActivityLifecycleCallback {
  void onActivityLifecycleChanged(Activity activity, Stage stage);
}
