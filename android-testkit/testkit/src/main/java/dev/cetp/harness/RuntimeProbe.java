package dev.cetp.harness;

import java.lang.reflect.Field;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The template's start-up counters, for tests: how often a native library load was tried and
 * how often the runtime was started ({@code dev.cetp.CetpRuntime}, package-private in the
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
