package androidx.test.runner.intent;

/**
 * Optional process-wide {@link IntentStubber}. RoboMonitoringInstrumentation asks {@link
 * #isLoaded} on every {@code execStartActivity} and only then calls {@link #getInstance}.
 */
public final class IntentStubberRegistry {
  private static IntentStubber instance;
  private static boolean loaded;

  private IntentStubberRegistry() {}

  /** @throws IllegalStateException if a stubber is already loaded */
  public static synchronized void load(IntentStubber stubber) {
    if (stubber == null) {
      throw new NullPointerException("IntentStubber cannot be null!");
    }
    if (loaded) {
      throw new IllegalStateException("Intent stubber already registered! Multiple stubbers are not allowed.");
    }
    instance = stubber;
    loaded = true;
  }

  public static synchronized boolean isLoaded() {
    return loaded;
  }

  /** @throws IllegalStateException if no stubber is loaded */
  public static synchronized IntentStubber getInstance() {
    if (!loaded) {
      throw new IllegalStateException("No intent stubber loaded!");
    }
    return instance;
  }

  public static synchronized void reset() {
    instance = null;
    loaded = false;
  }
}
