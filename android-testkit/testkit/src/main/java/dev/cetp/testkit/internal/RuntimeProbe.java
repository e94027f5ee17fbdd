package dev.cetp.testkit.internal;

import java.lang.reflect.Field;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The template's start-up counters, for tests: how often a native library load was tried and
 * how often the runtime was started, and a restart of the runtime ({@code dev.cetp.CetpRuntime}, package-private in the
 * bundle's {@code app.jar}, so read by reflection).
 */
public final class RuntimeProbe {
  private RuntimeProbe() {}

  /** Library loads tried in this JVM so far. */
  public static int loads() {
    return counter("loads");
  }

  /** Runtime starts in this JVM so far. */
  public static int starts() {
    return counter("starts");
  }

  /**
   * Makes the next call start the runtime afresh, as the first call after a process restart
   * does: the template forgets that it started for this application (the library stays loaded,
   * as a JVM cannot load it twice), so the library's provider is built again.
   */
  public static void restart() {
    try {
      Field field = Class.forName("dev.cetp.CetpRuntime").getDeclaredField("startedFor");
      field.setAccessible(true);
      field.set(null, null);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("dev.cetp.CetpRuntime.startedFor is not writable", e);
    }
  }

  private static int counter(String name) {
    try {
      Field field = Class.forName("dev.cetp.CetpRuntime").getDeclaredField(name);
      field.setAccessible(true);
      return ((AtomicInteger) field.get(null)).get();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("dev.cetp.CetpRuntime." + name + " is not readable", e);
    }
  }
}
