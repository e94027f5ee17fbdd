package androidx.test.platform.app;

import android.app.Instrumentation;
import android.content.Context;
import android.os.Bundle;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Stand-in for androidx.test:monitor's registry of the running Instrumentation.
 *
 * <p>Robolectric calls {@link #registerInstance} from {@code AndroidTestEnvironment} (with its
 * RoboMonitoringInstrumentation before each test, and with {@code null} when it clears the
 * environment afterwards) and {@link #getInstrumentation} from LocalActivityInvoker and
 * LocalPermissionGranter.
 */
public final class InstrumentationRegistry {
  private static final AtomicReference<Instrumentation> instrumentation = new AtomicReference<>();
  private static final AtomicReference<Bundle> arguments = new AtomicReference<>();

  private InstrumentationRegistry() {}

  /** Records the instrumentation and a private copy of its arguments; {@code null} clears it. */
  public static void registerInstance(Instrumentation instr, Bundle args) {
    instrumentation.set(instr);
    arguments.set(args == null ? null : new Bundle(args));
  }

  /** @throws IllegalStateException if no instrumentation is registered */
  public static Instrumentation getInstrumentation() {
    Instrumentation instr = instrumentation.get();
    if (instr == null) {
      throw new IllegalStateException(
          "No instrumentation registered! Must run under a registering instrumentation.");
    }
    return instr;
  }

  /** Returns a copy of the registered arguments (never {@code null}). */
  public static Bundle getArguments() {
    Bundle args = arguments.get();
    if (args == null) {
      throw new IllegalStateException(
          "No instrumentation arguments registered! Must run under a registering instrumentation.");
    }
    return new Bundle(args);
  }

  public static Context getContext() {
    return getInstrumentation().getContext();
  }

  public static Context getTargetContext() {
    return getInstrumentation().getTargetContext();
  }
}
