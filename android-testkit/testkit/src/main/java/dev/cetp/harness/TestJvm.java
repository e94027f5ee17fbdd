package dev.cetp.harness;

import android.os.Build;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/**
 * Checks that the running fork got the JVM setup the pom promises, so that a per-execution
 * {@code argLine} or {@code systemPropertyVariables} override cannot silently drop it.
 */
public final class TestJvm {
  /** The only SDK the suites run. */
  public static final int SDK = 34;
  /** The framework jar Robolectric must find offline. */
  public static final String ANDROID_ALL_JAR = "android-all-instrumented-14-robolectric-10818077-i7.jar";

  private TestJvm() {}

  /**
   * The suite's forks: {@link #requireRobolectric()} and {@code -Xcheck:jni}.
   *
   * @throws IllegalStateException naming the first missing piece
   */
  public static void requireConfigured() {
    List<String> args = ManagementFactory.getRuntimeMXBean().getInputArguments();
    require(args.contains("-Xcheck:jni"), "-Xcheck:jni missing from " + args);
    requireRobolectric();
  }

  /**
   * What any test of a host bundle needs: Robolectric's {@code --add-opens} flags, offline with
   * the SDK 34 framework jar in {@code robolectric.dependency.dir}, running SDK 34.
   *
   * @throws IllegalStateException naming the first missing piece
   */
  public static void requireRobolectric() {
    List<String> args = ManagementFactory.getRuntimeMXBean().getInputArguments();
    require(
        args.contains("--add-opens=java.base/java.lang=ALL-UNNAMED"),
        "Robolectric's --add-opens flags missing from " + args);
    require(
        "true".equals(System.getProperty("robolectric.offline")), "robolectric.offline is not true");
    String depDir = System.getProperty("robolectric.dependency.dir");
    require(depDir != null, "robolectric.dependency.dir is not set");
    Path jar = Paths.get(depDir, ANDROID_ALL_JAR);
    require(Files.isRegularFile(jar), jar + " does not exist");
    require(Build.VERSION.SDK_INT == SDK, "running on SDK " + Build.VERSION.SDK_INT);
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalStateException(message);
    }
  }
}
