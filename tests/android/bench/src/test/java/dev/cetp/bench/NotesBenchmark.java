package dev.cetp.bench;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import android.content.ContentResolver;
import android.content.pm.PackageManager;
import android.content.pm.ProviderInfo;
import android.net.Uri;
import android.os.Bundle;
// Internal: the process start is timed (no rule may start it first); PackageManager is counted;
// raw extras (Wire's words).
import dev.cetp.testkit.internal.Callers;
import dev.cetp.testkit.internal.CetpTransport;
import dev.cetp.testkit.internal.ConsentAdmin;
import dev.cetp.testkit.internal.CountingPackageManager;
import dev.cetp.testkit.internal.HostBundle;
import dev.cetp.testkit.internal.ManifestInstaller;
import dev.cetp.testkit.internal.Wire;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.json.JSONObject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.Robolectric;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;
import org.robolectric.shadows.ShadowLog;

/**
 * The notes sample (SDK: Android template + Rust library of the host bundle) against {@link
 * HandWrittenNotesProvider}, side by side in this one JVM, through {@code ContentResolver.call}
 * as an agent makes it. Every case is timed in batches, interleaved round by round (SDK and
 * hand-written alternate which goes first), after a warm-up; the report gives the median time
 * per call, the spread (25th to 75th percentile of the batches) and the ratio of the medians.
 *
 * <p>System properties: {@code cetp.bench.rounds} (default 15), {@code cetp.bench.warmup} (calls
 * per case and provider before timing, default 2000), {@code cetp.bench.batchMillis} (target
 * batch length, default 100), {@code cetp.bench.minBatch} (fewest calls per batch, default 200), {@code cetp.bench.memoryCalls} (default 100000), {@code
 * cetp.bench.db} (a prepared notes database copied into the app's files dir before the
 * provider starts, so the cold start does not include creating it), {@code cetp.bench.out} (the
 * Markdown report). {@code cargo xtask bench} sets them; {@code cargo xtask test} runs one short
 * round so the benchmark keeps compiling and working.
 */
@RunWith(RobolectricTestRunner.class)
@Config(shadows = CountingPackageManager.class)
public class NotesBenchmark {
  private static final String SDK_AUTHORITY = "dev.cetp.samples.notes.tools";
  private static final int AGENT_UID = 10_123;
  private static final byte[] AGENT_CERT = "agent-signing-cert".getBytes(StandardCharsets.UTF_8);
  // Two cores here: two threads against one is what the machine can show (more threads measure
  // the scheduler).
  private static final int THREADS = 2;
  // New provider instances timed for the creation figure.
  private static final int CREATIONS = 21;

  private final int rounds = Integer.getInteger("cetp.bench.rounds", 15);
  private final long batchNanos = Long.getLong("cetp.bench.batchMillis", 100) * 1_000_000;
  private final int memoryCalls = Integer.getInteger("cetp.bench.memoryCalls", 100_000);
  private final int warmup = Integer.getInteger("cetp.bench.warmup", 2000);
  private final int minBatch = Integer.getInteger("cetp.bench.minBatch", 200);

  private ContentResolver resolver;

  /** One kind of call, made the same way against either provider. */
  private static final class Case {
    final String name;
    final String method;
    final String tool;
    final String args;
    final String expectStatus;

    Case(String name, String method, String tool, String args, String expectStatus) {
      this.name = name;
      this.method = method;
      this.tool = tool;
      this.args = args;
      this.expectStatus = expectStatus;
    }

    Bundle extras() {
      Bundle b = new Bundle();
      if (tool != null) {
        b.putString(Wire.EXTRA_TOOL_NAME, tool);
        b.putString(Wire.EXTRA_ARGS, args);
      }
      return b;
    }
  }

  private static final Case LIST_TOOLS = new Case("`list_tools`", "list_tools", null, null, "success");
  private static final Case GET_NOTE =
      new Case("`get_note {\"id\":16}`", "execute_tool", "get_note", "{\"id\":16}", "success");
  private static final Case ROWS_100 =
      new Case(
          "`notes_between`, 100 rows",
          "execute_tool",
          "notes_between",
          "{\"from\":\"2023-01-01\",\"to\":\"2023-12-31\",\"limit\":100}",
          "success");
  private static final Case FROM_AFTER_TO =
      new Case(
          "`notes_between` with `from` after `to`",
          "execute_tool",
          "notes_between",
          "{\"from\":\"2023-06-01\",\"to\":\"2023-01-01\"}",
          "error");
  private static final List<Case> CASES = List.of(LIST_TOOLS, GET_NOTE, ROWS_100, FROM_AFTER_TO);

  @Test
  public void sdkAgainstHandWritten() throws Exception {
    StringBuilder report = new StringBuilder();
    PackageManager pm = RuntimeEnvironment.getApplication().getPackageManager();
    resolver = RuntimeEnvironment.getApplication().getContentResolver();
    Callers.install(pm, AGENT_UID, "com.example.agent", AGENT_CERT);
    Callers.setCallingUid(AGENT_UID);

    // Cold start: the provider's onCreate (System.loadLibrary, JNI_OnLoad, init: the build
    // function) up to the first answered list_tools.
    HostBundle bundle = HostBundle.current();
    ManifestInstaller.Installed app = bundle.install();
    String prepared = System.getProperty("cetp.bench.db");
    Path db = RuntimeEnvironment.getApplication().getFilesDir().toPath().resolve("notes.db");
    if (prepared != null && !prepared.isEmpty()) {
      Files.createDirectories(db.getParent());
      Files.copy(Paths.get(prepared), db, StandardCopyOption.REPLACE_EXISTING);
    }
    // The hand-written provider starts first; its first call also takes Robolectric's own
    // first-use costs of the ContentResolver path, which a device does not have.
    ProviderInfo info = new ProviderInfo();
    info.authority = HandWrittenNotesProvider.AUTHORITY;
    info.name = HandWrittenNotesProvider.class.getName();
    info.packageName = RuntimeEnvironment.getApplication().getPackageName();
    Robolectric.buildContentProvider(HandWrittenNotesProvider.class).create(info);
    call(HandWrittenNotesProvider.AUTHORITY, LIST_TOOLS);

    // Robolectric instruments each class when it is first loaded, which a device does not:
    // load the template's classes before the clock starts.
    for (String cls :
        new String[] {
          "CetpToolProvider", "CetpRuntime", "NativeBridge", "CallerIdentity", "CallerIdentityCache", "Wire"
        }) {
      Class.forName("dev.cetp." + cls);
    }
    // Robolectric also instruments the framework code behind a PackageManager look-up and a
    // receiver registration on first use (25 ms and 4 ms here), which a device has preloaded in
    // every process: pay that with another package and a throwaway receiver first.
    try {
      pm.getPackageInfo(RuntimeEnvironment.getApplication().getPackageName(), 0);
    } catch (PackageManager.NameNotFoundException e) {
      throw new AssertionError(e);
    }
    android.content.BroadcastReceiver warm =
        new android.content.BroadcastReceiver() {
          @Override
          public void onReceive(android.content.Context context, android.content.Intent intent) {}
        };
    android.content.IntentFilter packages =
        new android.content.IntentFilter(android.content.Intent.ACTION_PACKAGE_REPLACED);
    packages.addDataScheme("package");
    RuntimeEnvironment.getApplication().registerReceiver(warm, packages);
    RuntimeEnvironment.getApplication().unregisterReceiver(warm);
    // Process start: the provider's onCreate (it only registers), then the first call, which
    // loads the library, runs the build function, opens the grant store and answers.
    long t0 = System.nanoTime();
    app.startProviders();
    long t1 = System.nanoTime();
    Bundle first = call(SDK_AUTHORITY, LIST_TOOLS);
    long t2 = System.nanoTime();
    Bundle second = call(SDK_AUTHORITY, LIST_TOOLS);
    long t3 = System.nanoTime();
    assertEquals(String.valueOf(second), "success", second.getString("status"));
    assertEquals(String.valueOf(first), "success", first.getString("status"));
    // The SDK's share of the first call, as it logs it once per process.
    String started = null;
    for (ShadowLog.LogItem item : ShadowLog.getLogsForTag("cetp")) {
      if (item.msg.startsWith("CETP provider started in ")) {
        started = item.msg.substring("CETP provider started in ".length());
      }
    }
    assertTrue("the start-up log line", started != null);
    // Creating a provider alone, once Robolectric's first-use costs are paid: new instances of
    // each, alternating, the median (what attachInfo and onCreate cost at a process start).
    ProviderInfo sdkInfo = app.providerInfo(SDK_AUTHORITY);
    double[] sdkCreate = new double[CREATIONS];
    double[] handCreate = new double[CREATIONS];
    for (int i = 0; i < CREATIONS; i++) {
      long c0 = System.nanoTime();
      Robolectric.buildContentProvider(HandWrittenNotesProvider.class).create(info);
      long c1 = System.nanoTime();
      app.startProvider(sdkInfo);
      long c2 = System.nanoTime();
      handCreate[i] = (c1 - c0) / 1e6;
      sdkCreate[i] = (c2 - c1) / 1e6;
    }
    Arrays.sort(sdkCreate);
    Arrays.sort(handCreate);

    // The agent is approved with full access, as the user would on the consent dialog.
    ConsentAdmin.of(new CetpTransport(), SDK_AUTHORITY, AGENT_UID)
        .call("get_note", "{\"id\":1}")
        .approve(ConsentAdmin.Access.FULL);

    for (Case c : CASES) {
      checkSameAnswer(c);
    }

    // Latency, interleaved.
    report.append("| case | cetp-rs | hand-written | ratio |\n|---|---|---|---|\n");
    List<double[]> sdkBatches = new ArrayList<>();
    List<double[]> handBatches = new ArrayList<>();
    int[] batchSizes = new int[CASES.size()];
    for (int i = 0; i < CASES.size(); i++) {
      Case c = CASES.get(i);
      // Warm-up (JIT, SQLite page cache, statement caches), then the batch size for ~batchNanos.
      double perCall =
          Math.max(
              timeBatch(SDK_AUTHORITY, c, warmup),
              timeBatch(HandWrittenNotesProvider.AUTHORITY, c, warmup));
      batchSizes[i] =
          (int) Math.max(minBatch, Math.min(200_000, batchNanos / Math.max(1.0, perCall)));
      sdkBatches.add(new double[rounds]);
      handBatches.add(new double[rounds]);
    }
    CountingPackageManager.reset();
    long sdkCalls = 0;
    for (int r = 0; r < rounds; r++) {
      for (int i = 0; i < CASES.size(); i++) {
        Case c = CASES.get(i);
        boolean sdkFirst = (r + i) % 2 == 0;
        for (int k = 0; k < 2; k++) {
          boolean sdk = (k == 0) == sdkFirst;
          double ns =
              timeBatch(sdk ? SDK_AUTHORITY : HandWrittenNotesProvider.AUTHORITY, c, batchSizes[i]);
          (sdk ? sdkBatches : handBatches).get(i)[r] = ns;
          if (sdk) {
            sdkCalls += batchSizes[i];
          }
        }
      }
    }
    long pmQueries = CountingPackageManager.queries();
    for (int i = 0; i < CASES.size(); i++) {
      double[] s = sdkBatches.get(i);
      double[] h = handBatches.get(i);
      report.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s |\n",
              CASES.get(i).name,
              micros(s),
              micros(h),
              ratio(median(s) / median(h))));
    }

    // Throughput: 2 threads against 1 on the small call.
    double[][] tput = new double[4][rounds];
    int perThread = Math.max(minBatch, batchSizes[1] / 2);
    for (int r = 0; r < rounds; r++) {
      boolean sdkFirst = r % 2 == 0;
      for (int k = 0; k < 2; k++) {
        boolean sdk = (k == 0) == sdkFirst;
        String authority = sdk ? SDK_AUTHORITY : HandWrittenNotesProvider.AUTHORITY;
        int base = sdk ? 0 : 2;
        tput[base][r] = throughput(authority, GET_NOTE, 1, perThread * THREADS);
        tput[base + 1][r] = throughput(authority, GET_NOTE, THREADS, perThread);
        if (sdk) {
          sdkCalls += 2L * perThread * THREADS;
        }
      }
    }
    pmQueries = CountingPackageManager.queries();
    double[] sdkScale = new double[rounds];
    double[] handScale = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      sdkScale[r] = tput[1][r] / tput[0][r];
      handScale[r] = tput[3][r] / tput[2][r];
    }
    report.append(
        String.format(
            Locale.ROOT,
            "| small call, %d threads vs 1 (throughput) | %s (%s) | %s (%s) | — |\n",
            THREADS,
            ratio(median(sdkScale)),
            range(sdkScale, "×"),
            ratio(median(handScale)),
            range(handScale, "×")));

    // Memory over many calls.
    Memory sdkMemory = memory(SDK_AUTHORITY, GET_NOTE, memoryCalls);
    Memory handMemory = memory(HandWrittenNotesProvider.AUTHORITY, GET_NOTE, memoryCalls);
    sdkCalls += memoryCalls + memoryCalls / 10;
    pmQueries = CountingPackageManager.queries();

    report.append("\n| measure | cetp-rs | hand-written |\n|---|---|---|\n");
    report.append(
        String.format(
            Locale.ROOT,
            "| PackageManager queries per call (steady state, %d calls) | %s | 0 (checks nobody) |\n",
            sdkCalls,
            pmQueries == 0 ? "0" : String.format(Locale.ROOT, "%.4f", pmQueries / (double) sdkCalls)));
    report.append(
        String.format(
            Locale.ROOT,
            "| RSS growth over %d `get_note` calls (Java heap pre-touched: native and JVM memory) | %s | %s |\n",
            memoryCalls,
            kib(sdkMemory.rssGrowth),
            kib(handMemory.rssGrowth)));
    report.append(
        String.format(
            Locale.ROOT,
            "| live Java heap growth over the same calls (after GC) | %s | %s |\n",
            kib(sdkMemory.heapGrowth),
            kib(handMemory.heapGrowth)));
    report.append(
        String.format(
            Locale.ROOT,
            "| provider creation, `attachInfo` + `onCreate` (median of %d new instances, after Robolectric's first-use costs) | %.3f ms | %.3f ms |\n",
            CREATIONS,
            sdkCreate[CREATIONS / 2],
            handCreate[CREATIONS / 2]));
    report.append(
        String.format(
            Locale.ROOT,
            "| process start under Robolectric: the provider's creation; the first call; the second `list_tools` | %.3f ms; %.2f ms; %.3f ms | — |\n",
            (t1 - t0) / 1e6,
            (t2 - t1) / 1e6,
            (t3 - t2) / 1e6));
    report.append(
        String.format(
            Locale.ROOT,
            "| the SDK's start inside that first call, as it logs it | %s | — |\n",
            started));
    report.append(
        String.format(
            Locale.ROOT,
            "\n%d rounds; batches of %s calls per case (about %d ms each).\n",
            rounds,
            Arrays.toString(batchSizes),
            batchNanos / 1_000_000));

    String out = System.getProperty("cetp.bench.out");
    if (out != null && !out.isEmpty()) {
      Path path = Paths.get(out);
      Files.createDirectories(path.toAbsolutePath().getParent());
      Files.write(path, report.toString().getBytes(StandardCharsets.UTF_8));
    }
    System.out.println(report);
    assertTrue("no SDK call was measured", sdkCalls > 0);
  }

  private Bundle call(String authority, Case c) {
    return resolver.call(Uri.parse("content://" + authority), c.method, null, c.extras());
  }

  /** Both providers answer the case with the same status and, on success, the same data. */
  private void checkSameAnswer(Case c) throws Exception {
    Bundle sdk = call(SDK_AUTHORITY, c);
    Bundle hand = call(HandWrittenNotesProvider.AUTHORITY, c);
    assertEquals(c.name + ": " + sdk, c.expectStatus, sdk.getString("status"));
    assertEquals(c.name + ": " + hand, c.expectStatus, hand.getString("status"));
    if ("success".equals(c.expectStatus) && c.tool != null) {
      JSONObject a = new JSONObject(sdk.getString("data"));
      JSONObject b = new JSONObject(hand.getString("data"));
      if (a.has("notes")) {
        assertEquals(c.name, a.getLong("total"), b.getLong("total"));
        assertEquals(c.name, 100, a.getJSONArray("notes").length());
        assertEquals(c.name, a.getJSONArray("notes").toString(), b.getJSONArray("notes").toString());
      } else {
        assertEquals(c.name, a.toString(), b.toString());
      }
    }
  }

  /** Nanoseconds per call over {@code n} calls. */
  private double timeBatch(String authority, Case c, int n) {
    Uri uri = Uri.parse("content://" + authority);
    long start = System.nanoTime();
    int ok = 0;
    for (int i = 0; i < n; i++) {
      Bundle reply = resolver.call(uri, c.method, null, c.extras());
      if (reply != null && reply.getString("status") != null) {
        ok++;
      }
    }
    long elapsed = System.nanoTime() - start;
    if (ok != n) {
      throw new AssertionError(c.name + " on " + authority + ": " + (n - ok) + " calls failed");
    }
    return elapsed / (double) n;
  }

  /** Calls per second with {@code threads} callers making {@code perThread} calls each. */
  private double throughput(String authority, Case c, int threads, int perThread)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CyclicBarrier start = new CyclicBarrier(threads + 1);
      List<Future<Integer>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(
            pool.submit(
                () -> {
                  start.await();
                  Uri uri = Uri.parse("content://" + authority);
                  int ok = 0;
                  for (int i = 0; i < perThread; i++) {
                    Bundle reply = resolver.call(uri, c.method, null, c.extras());
                    if (reply != null && "success".equals(reply.getString("status"))) {
                      ok++;
                    }
                  }
                  return ok;
                }));
      }
      start.await();
      long t0 = System.nanoTime();
      int ok = 0;
      for (Future<Integer> f : done) {
        ok += f.get();
      }
      long elapsed = System.nanoTime() - t0;
      assertEquals(authority, threads * perThread, ok);
      return ok / (elapsed / 1e9);
    } finally {
      pool.shutdownNow();
    }
  }

  private static final class Memory {
    long rssGrowth;
    long heapGrowth;
  }

  private Memory memory(String authority, Case c, int calls) throws IOException {
    timeBatch(authority, c, Math.max(1, calls / 10));
    settle();
    long rss0 = rssBytes();
    long heap0 = usedHeap();
    timeBatch(authority, c, calls);
    settle();
    Memory m = new Memory();
    m.rssGrowth = rssBytes() - rss0;
    m.heapGrowth = usedHeap() - heap0;
    return m;
  }

  private static void settle() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
  }

  private static long usedHeap() {
    Runtime rt = Runtime.getRuntime();
    return rt.totalMemory() - rt.freeMemory();
  }

  /** VmRSS of this process, from /proc. */
  private static long rssBytes() throws IOException {
    for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        String[] parts = line.trim().split("\\s+");
        return Long.parseLong(parts[1]) * 1024;
      }
    }
    throw new IOException("no VmRSS in /proc/self/status");
  }

  // ----------------------------------------------------------------------------------------
  // Statistics and formatting

  private static double median(double[] values) {
    return percentile(values, 0.5);
  }

  private static double percentile(double[] values, double p) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    double index = p * (sorted.length - 1);
    int lo = (int) Math.floor(index);
    int hi = (int) Math.ceil(index);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (index - lo);
  }

  private static String micros(double[] nanos) {
    return String.format(
        Locale.ROOT,
        "%s µs (%s–%s)",
        fmt(median(nanos) / 1000),
        fmt(percentile(nanos, 0.25) / 1000),
        fmt(percentile(nanos, 0.75) / 1000));
  }

  private static String range(double[] values, String unit) {
    return String.format(
        Locale.ROOT,
        "%.2f–%.2f%s",
        percentile(values, 0.25),
        percentile(values, 0.75),
        unit);
  }

  private static String ratio(double r) {
    return String.format(Locale.ROOT, "%.2f×", r);
  }

  private static String fmt(double v) {
    if (v >= 100) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    if (v >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }

  private static String kib(long bytes) {
    return String.format(Locale.ROOT, "%+.0f KiB", bytes / 1024.0);
  }
}
