package androidx.test.runner.intent;

import java.util.concurrent.atomic.AtomicReference;

/** Process-wide holder of the {@link IntentMonitor} (registered by Robolectric). */
public final class IntentMonitorRegistry {
  private static final AtomicReference<IntentMonitor> monitor = new AtomicReference<>();

  private IntentMonitorRegistry() {}

  /** @throws IllegalStateException if no monitor has been registered */
  public static IntentMonitor getInstance() {
    IntentMonitor m = monitor.get();
    if (m == null) {
      throw new IllegalStateException(
          "No intent monitor registered! Are you running under an Instrumentation which"
              + " registers intent monitors?");
    }
    return m;
  }

  public static void registerInstance(IntentMonitor newMonitor) {
    monitor.set(newMonitor);
  }
}
