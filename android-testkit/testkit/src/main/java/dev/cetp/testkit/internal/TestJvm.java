package dev.cetp.testkit.internal;

import android.os.Build;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Stream;

/**
 * Checks that the running fork got the JVM setup the pom promises, so that a per-execution
 * {@code argLine} or {@code systemPropertyVariables} override cannot silently drop it.
 */
public final class TestJvm {
  /** The SDK the suites run (robolectric.properties). */
  public static final int SDK = 34;
  /** The newer SDK the end-to-end suite runs a subset on too, in its own fork. */
  public static final int SDK_ANDROID_16 = 36;

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
   * the running SDK's framework jar ({@code android-all-instrumented-<release>-robolectric-*}, the
   * version the pom pins) in {@code robolectric.dependency.dir}, running SDK 34 (or 36, for the
   * classes that ask for it).
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
    require(
        Build.VERSION.SDK_INT == SDK || Build.VERSION.SDK_INT == SDK_ANDROID_16,
        "running on SDK " + Build.VERSION.SDK_INT);
    String prefix = "android-all-instrumented-" + Build.VERSION.RELEASE + "-robolectric-";
    try (Stream<Path> jars = Files.list(Paths.get(depDir))) {
      require(
          jars.anyMatch(j -> j.getFileName().toString().startsWith(prefix)),
          depDir + " has no " + prefix + "*.jar");
    } catch (IOException e) {
      throw new IllegalStateException(depDir + ": " + e, e);
    }
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalStateException(message);
    }
  }
}
