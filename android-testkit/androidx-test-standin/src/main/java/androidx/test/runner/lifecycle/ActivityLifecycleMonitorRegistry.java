package androidx.test.runner.lifecycle;

import java.util.concurrent.atomic.AtomicReference;

/** Process-wide holder of the {@link ActivityLifecycleMonitor} (registered by Robolectric). */
public final class ActivityLifecycleMonitorRegistry {
  private static final AtomicReference<ActivityLifecycleMonitor> monitor = new AtomicReference<>();

  private ActivityLifecycleMonitorRegistry() {}

  /** @throws IllegalStateException if no monitor has been registered */
  public static ActivityLifecycleMonitor getInstance() {
    ActivityLifecycleMonitor m = monitor.get();
    if (m == null) {
      throw new IllegalStateException(
          "No lifecycle monitor registered! Are you running under an Instrumentation which"
              + " registers lifecycle monitors?");
    }
    return m;
  }

  public static void registerInstance(ActivityLifecycleMonitor newMonitor) {
    monitor.set(newMonitor);
  }
}
