package androidx.test.internal.platform.util;

import java.util.Map;

/**
 * Robolectric calls {@link #dumpThreadStates} when an idling resource times out. There is no
 * device test-output directory on the JVM, so this stand-in writes the thread dump to stderr.
 */
public final class TestOutputEmitter {
  private TestOutputEmitter() {}

  public static void dumpThreadStates(String outputFileName) {
    StringBuilder sb = new StringBuilder("Thread states (").append(outputFileName).append("):\n");
    for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
      sb.append("  ").append(e.getKey()).append('\n');
      for (StackTraceElement ste : e.getValue()) {
        sb.append("    at ").append(ste).append('\n');
      }
    }
    System.err.print(sb);
  }
}
