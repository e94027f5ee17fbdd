package androidx.test.runner.lifecycle;

import android.app.Application;

/** Notified when the Application moves to a new {@link ApplicationStage}. */
public interface ApplicationLifecycleCallback {
  void onApplicationLifecycleChanged(Application app, ApplicationStage stage);
}
