package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import android.app.Service;
import android.content.ComponentName;
import android.os.StrictMode;
import dev.cetp.e2e.category.FixtureProviderBundle;
import dev.cetp.testkit.ToolReply;
// Internal: the test creates the provider and the Service itself, to count what that costs.
import dev.cetp.testkit.internal.ApexAgent;
import dev.cetp.testkit.internal.CetpTransport;
import dev.cetp.testkit.internal.HostBundle;
import dev.cetp.testkit.internal.ManifestInstaller;
import dev.cetp.testkit.internal.RuntimeProbe;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;

/**
 * What the SDK costs an app at process start: nothing. The template's ContentProvider and plugin
 * Service are created at every start of the app's process (the provider before {@code
 * Application.onCreate}, on the main thread), whether or not an agent ever calls; creating them
 * loads no native library, starts nothing and touches no file of the app. The first call, from
 * any host and any number of Binder threads at once, starts the runtime exactly once.
 */
@RunWith(RobolectricTestRunner.class)
@Category(FixtureProviderBundle.class)
public class StartupTest {
  private static final ComponentName SERVICE =
      new ComponentName("dev.cetp.rustfixture", "dev.cetp.ApexPluginService");

  private StrictMode.ThreadPolicy before;
  private ExecutorService pool;

  @Before
  public void strict() {
    before = StrictMode.getThreadPolicy();
  }

  @After
  public void relax() {
    StrictMode.setThreadPolicy(before);
    if (pool != null) {
      pool.shutdownNow();
    }
  }

  /** Every file under the app's data directory, with its size and modification time. */
  private static TreeMap<String, String> dataFiles() throws IOException {
    File data = RuntimeEnvironment.getApplication().getDataDir();
    TreeMap<String, String> out = new TreeMap<>();
    if (data == null || !data.exists()) {
      return out;
    }
    try (Stream<Path> walk = Files.walk(data.toPath())) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        File f = p.toFile();
        out.put(p.toString(), f.isFile() ? f.length() + "@" + f.lastModified() : "dir");
      }
    }
    return out;
  }

  @Test
  public void creatingTheProviderAndTheServiceLoadsNothingAndTouchesNoFile() throws Exception {
    ManifestInstaller.Installed app = HostBundle.current().install();
    int loads = RuntimeProbe.loads();
    int starts = RuntimeProbe.starts();
    TreeMap<String, String> files = dataFiles();
    // Disk reads and writes on this (the main) thread would kill the test.
    StrictMode.setThreadPolicy(
        new StrictMode.ThreadPolicy.Builder()
            .detectDiskReads()
            .detectDiskWrites()
            .penaltyDeath()
            .build());
    app.startProviders();
    Service service = ApexAgent.publish(SERVICE, ApexAgent.bindIntent(SERVICE));
    StrictMode.setThreadPolicy(before);

    assertEquals("no library load at creation", loads, RuntimeProbe.loads());
    assertEquals("no runtime start at creation", starts, RuntimeProbe.starts());
    assertEquals("no file of the app touched", files, dataFiles());

    // The first call is what starts it.
    assertTrue(new CetpTransport().listTools(FixtureProviderE2ETest.AUTHORITY).isSuccess());
    assertEquals(starts + 1, RuntimeProbe.starts());
    service.onDestroy();
  }

  @Test
  public void concurrentFirstCallsStartTheRuntimeOnce() throws Exception {
    HostBundle.current().install().startProviders();
    int starts = RuntimeProbe.starts();
    int loads = RuntimeProbe.loads();
    CetpTransport transport = new CetpTransport();
    int threads = 16;
    CyclicBarrier together = new CyclicBarrier(threads);
    pool = Executors.newFixedThreadPool(threads);
    List<Future<ToolReply>> answers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      final boolean list = t % 2 == 0;
      Callable<ToolReply> first =
          () -> {
            together.await();
            return list
                ? transport.listTools(FixtureProviderE2ETest.AUTHORITY)
                : transport.executeTool(
                    FixtureProviderE2ETest.AUTHORITY, "echo", "{\"text\":\"first\"}", null);
          };
      answers.add(pool.submit(first));
    }
    for (Future<ToolReply> answer : answers) {
      ToolReply r = answer.get(2, TimeUnit.MINUTES); // hang guard only
      assertTrue(r.toString(), r.isSuccess());
    }
    assertEquals("one start for 16 concurrent first calls", starts + 1, RuntimeProbe.starts());
    // Loaded once per process: by this test if no earlier test of the fork loaded it.
    assertTrue("one library load at most", RuntimeProbe.loads() - loads <= 1);
  }
}
