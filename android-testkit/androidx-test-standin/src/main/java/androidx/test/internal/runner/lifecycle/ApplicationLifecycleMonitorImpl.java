package androidx.test.internal.runner.lifecycle;

import android.app.Application;
import androidx.test.runner.lifecycle.ApplicationLifecycleCallback;
import androidx.test.runner.lifecycle.ApplicationLifecycleMonitor;
import androidx.test.runner.lifecycle.ApplicationStage;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Notifies callbacks around {@code Application.onCreate}. RoboMonitoringInstrumentation calls
 * {@link #signalLifecycleChange} with PRE_ON_CREATE and CREATED from {@code
 * callApplicationOnCreate}, i.e. at the start of every Robolectric test.
 */
public final class ApplicationLifecycleMonitorImpl implements ApplicationLifecycleMonitor {
  private final List<WeakReference<ApplicationLifecycleCallback>> callbacks = new ArrayList<>();

  @Override
  public void addLifecycleCallback(ApplicationLifecycleCallback callback) {
    if (callback == null) {
      throw new NullPointerException("callback");
    }
    synchronized (callbacks) {
      for (WeakReference<ApplicationLifecycleCallback> ref : callbacks) {
        if (ref.get() == callback) {
          return;
        }
      }
      callbacks.add(new WeakReference<>(callback));
    }
  }

  @Override
  public void removeLifecycleCallback(ApplicationLifecycleCallback callback) {
    synchronized (callbacks) {
      callbacks.removeIf(ref -> ref.get() == null || ref.get() == callback);
    }
  }

  public void signalLifecycleChange(Application app, ApplicationStage stage) {
    List<ApplicationLifecycleCallback> live = new ArrayList<>();
    synchronized (callbacks) {
      Iterator<WeakReference<ApplicationLifecycleCallback>> it = callbacks.iterator();
      while (it.hasNext()) {
        ApplicationLifecycleCallback cb = it.next().get();
        if (cb == null) {
          it.remove();
        } else {
          live.add(cb);
        }
      }
    }
    for (ApplicationLifecycleCallback cb : live) {
      cb.onApplicationLifecycleChanged(app, stage);
    }
  }
}
