package androidx.test.runner.lifecycle;

import java.util.concurrent.atomic.AtomicReference;

/** Process-wide holder of the {@link ApplicationLifecycleMonitor} (registered by Robolectric). */
public final class ApplicationLifecycleMonitorRegistry {
  private static final AtomicReference<ApplicationLifecycleMonitor> monitor =
      new AtomicReference<>();

  private ApplicationLifecycleMonitorRegistry() {}

  /** @throws IllegalStateException if no monitor has been registered */
  public static ApplicationLifecycleMonitor getInstance() {
    ApplicationLifecycleMonitor m = monitor.get();
    if (m == null) {
      throw new IllegalStateException(
          "No application lifecycle monitor registered! Are you running under an Instrumentation"
              + " which registers lifecycle monitors?");
    }
    return m;
  }

  public static void registerInstance(ApplicationLifecycleMonitor newMonitor) {
    monitor.set(newMonitor);
  }
}
