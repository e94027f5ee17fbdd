package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import dev.cetp.e2e.category.FixtureProviderBundle;
// Internal: the bundle's library and directory, handed to a child JVM run with -Xcheck:jni.
import dev.cetp.testkit.internal.HostBundle;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.rules.TemporaryFolder;

/**
 * Runs {@link JniCheckMain} in a child JVM with {@code -Xcheck:jni} and fails if the JVM's JNI
 * checker reported anything. (Inside the Surefire fork such warnings go straight to file
 * descriptor 1 and cannot be observed by a test; a child process's output can.)
 */
@Category(FixtureProviderBundle.class)
public class JniCheckTest {
  @Rule public TemporaryFolder files = new TemporaryFolder();

  @Test
  public void theBridgeTriggersNoJniCheckerWarnings() throws Exception {
    HostBundle bundle = HostBundle.current();
    String classpath = System.getProperty("surefire.test.class.path");
    if (classpath == null) {
      classpath = System.getProperty("java.class.path");
    }
    Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
    assertTrue(java + " missing", Files.isExecutable(java));
    ProcessBuilder pb =
        new ProcessBuilder(
            List.of(
                java.toString(),
                "-Xcheck:jni",
                "-Djava.library.path=" + bundle.dir(),
                "-cp",
                classpath,
                JniCheckMain.class.getName(),
                bundle.nativeLibraryName(),
                files.getRoot().getAbsolutePath()));
    pb.redirectErrorStream(true);
    pb.environment().put("RUST_BACKTRACE", "0");
    Process child = pb.start();
    String output = readAll(child.getInputStream());
    assertTrue("child JVM hung", child.waitFor(5, TimeUnit.MINUTES)); // hang guard only
    System.out.println(output); // kept in the surefire report

    assertEquals(output, 0, child.exitValue());
    assertTrue(output, output.contains("JNI-CHECK OK"));
    for (String sign :
        List.of(
            "WARNING in native method",
            "FATAL ERROR in native method",
            "WARNING: JNI", // e.g. "WARNING: JNI local refs: 33, exceeds capacity: 32"
            "JNI local refs",
            "Exception in thread")) {
      assertFalse(sign + " in:\n" + output, output.contains(sign));
    }
    // The panicking tool ran (its panic message went to stderr) and was contained.
    assertTrue(output, output.contains("boom: m"));
  }

  private static String readAll(InputStream in) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    in.transferTo(out);
    return out.toString(StandardCharsets.UTF_8);
  }
}
