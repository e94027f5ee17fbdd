package androidx.test.internal.runner.lifecycle;

import android.app.Activity;
import androidx.test.runner.lifecycle.ActivityLifecycleCallback;
import androidx.test.runner.lifecycle.ActivityLifecycleMonitor;
import androidx.test.runner.lifecycle.Stage;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Tracks the current {@link Stage} of every Activity. RoboMonitoringInstrumentation calls {@link
 * #signalLifecycleChange} from each {@code callActivityOnXxx}; Robolectric's LocalActivityInvoker,
 * FragmentController and ShadowUiAutomation read it. Activities and callbacks are held weakly, as
 * the real implementation does, so a leaked test Activity is not pinned by the monitor.
 */
public final class ActivityLifecycleMonitorImpl implements ActivityLifecycleMonitor {
  private final Object lock = new Object();
  private final Map<Activity, Stage> stages = new WeakHashMap<>();
  private final List<WeakReference<ActivityLifecycleCallback>> callbacks = new ArrayList<>();

  public ActivityLifecycleMonitorImpl() {}

  /** Accepted for API compatibility; this stand-in performs no main-thread checks. */
  public ActivityLifecycleMonitorImpl(boolean declawThreadCheck) {}

  @Override
  public void addLifecycleCallback(ActivityLifecycleCallback callback) {
    if (callback == null) {
      throw new NullPointerException("callback");
    }
    synchronized (lock) {
      for (WeakReference<ActivityLifecycleCallback> ref : callbacks) {
        if (ref.get() == callback) {
          return;
        }
      }
      callbacks.add(new WeakReference<>(callback));
    }
  }

  @Override
  public void removeLifecycleCallback(ActivityLifecycleCallback callback) {
    synchronized (lock) {
      callbacks.removeIf(ref -> ref.get() == null || ref.get() == callback);
    }
  }

  @Override
  public Stage getLifecycleStageOf(Activity activity) {
    synchronized (lock) {
      Stage stage = stages.get(activity);
      if (stage == null) {
        throw new IllegalArgumentException("Unknown activity: " + activity);
      }
      return stage;
    }
  }

  @Override
  public Collection<Activity> getActivitiesInStage(Stage stage) {
    List<Activity> result = new ArrayList<>();
    synchronized (lock) {
      for (Map.Entry<Activity, Stage> e : stages.entrySet()) {
        if (e.getValue() == stage && e.getKey() != null) {
          result.add(e.getKey());
        }
      }
    }
    return result;
  }

  /** Records the new stage, then notifies live callbacks outside the lock. */
  public void signalLifecycleChange(Stage stage, Activity activity) {
    List<ActivityLifecycleCallback> live = new ArrayList<>();
    synchronized (lock) {
      stages.put(activity, stage);
      Iterator<WeakReference<ActivityLifecycleCallback>> it = callbacks.iterator();
      while (it.hasNext()) {
        ActivityLifecycleCallback cb = it.next().get();
        if (cb == null) {
          it.remove();
        } else {
          live.add(cb);
        }
      }
    }
    for (ActivityLifecycleCallback cb : live) {
      cb.onActivityLifecycleChanged(activity, stage);
    }
  }
}
