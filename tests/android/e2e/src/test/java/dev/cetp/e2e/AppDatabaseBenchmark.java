package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;

import android.content.ContentResolver;
import android.content.ContentValues;
import android.content.Context;
import android.database.sqlite.SQLiteDatabase;
import android.net.Uri;
import android.os.Bundle;
import dev.cetp.e2e.category.AppDbBenchBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.CetpTestRule;
// Internal: the calling UID and the raw extras, so that the timed loop is ContentResolver.call
// alone (as in tests/android/bench).
import dev.cetp.testkit.internal.Callers;
import dev.cetp.testkit.internal.Wire;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Locale;
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;

/**
 * The cost of one tool call reading 1 and 100 rows through {@code AppDatabase} (Android's SQLite,
 * here Robolectric's native one, over JNI) against the same query on the same rows through the
 * crate's bundled SQLite (a copy of the file, so no file has two SQLite libraries), both through
 * {@code ContentResolver.call} as an agent makes it ({@code tests/app-db-bench-provider}, a
 * release host bundle). Batches alternate which path goes first; a cell is the median time per
 * call over the rounds. Not a test: it runs only in {@code bundle-app-db-bench}, which is skipped
 * unless asked for (docs/benchmarks.md).
 */
@RunWith(RobolectricTestRunner.class)
@Category(AppDbBenchBundle.class)
public class AppDatabaseBenchmark {
  static final int ROUNDS = Integer.getInteger("cetp.bench.rounds", 15);
  static final int WARMUP = Integer.getInteger("cetp.bench.warmup", 1000);

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  @Test
  public void framework_sqlite_against_bundled_sqlite() throws Exception {
    Context app = RuntimeEnvironment.getApplication();
    File db = app.getDatabasePath("bench.db");
    db.getParentFile().mkdirs();
    try (SQLiteDatabase w = SQLiteDatabase.openOrCreateDatabase(db, null)) {
      w.execSQL(
          "CREATE TABLE entry (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, title TEXT NOT NULL,"
              + " body TEXT NOT NULL, mood TEXT NOT NULL, created_at INTEGER NOT NULL,"
              + " tags TEXT NOT NULL DEFAULT '[]')");
      // As the app's entity would declare it (@Index): the query reads only the rows it returns.
      w.execSQL("CREATE INDEX index_entry_created_at ON entry(created_at, id)");
      String[] moods = {"GREAT", "GOOD", "OKAY", "BAD"};
      for (int i = 0; i < 1000; i++) {
        ContentValues v = new ContentValues();
        v.put("title", "Entry number " + i);
        v.put("body", "Some private text of entry " + i);
        v.put("mood", moods[i % 4]);
        v.put("created_at", 1_741_113_000_000L + i * 3_600_000L);
        v.put("tags", "[\"tag" + (i % 7) + "\",\"other\"]");
        w.insert("entry", null, v);
      }
    }
    Files.copy(db.toPath(), new File(db.getParentFile(), "bench-copy.db").toPath());
    Agent agent = cetp.agent("com.example.agent", null, 10_123, "cert".getBytes(StandardCharsets.UTF_8));

    StringBuilder report = new StringBuilder();
    report.append("| rows | AppDatabase (Android's SQLite) | bundled SQLite | ratio |\n|---|---|---|---|\n");
    for (int rows : new int[] {1, 100}) {
      String args = "{\"limit\":" + rows + "}";
      String framework = agent.call("framework_rows", args).assertSuccess().data();
      String bundled = agent.call("bundled_rows", args).assertSuccess().data();
      assertEquals("both paths answer the same rows", bundled, framework);
      int batch = rows == 1 ? 2000 : 100;
      perCall(agent, "framework_rows", args, WARMUP / (rows == 1 ? 1 : 10));
      perCall(agent, "bundled_rows", args, WARMUP / (rows == 1 ? 1 : 10));
      double[] f = new double[ROUNDS];
      double[] b = new double[ROUNDS];
      for (int r = 0; r < ROUNDS; r++) {
        if (r % 2 == 0) {
          f[r] = perCall(agent, "framework_rows", args, batch);
          b[r] = perCall(agent, "bundled_rows", args, batch);
        } else {
          b[r] = perCall(agent, "bundled_rows", args, batch);
          f[r] = perCall(agent, "framework_rows", args, batch);
        }
      }
      double fm = median(f);
      double bm = median(b);
      report.append(
          String.format(
              Locale.ROOT, "| %d | %.1f µs | %.1f µs | %.2f× |\n", rows, fm, bm, fm / bm));
    }
    report.append(
        String.format(Locale.ROOT, "\n%d rounds, medians of per-call times in batches.\n", ROUNDS));
    System.out.println(report);
    String out = System.getProperty("cetp.bench.out");
    if (out != null) {
      Files.write(new File(out).toPath(), report.toString().getBytes(StandardCharsets.UTF_8));
    }
  }

  private static double perCall(Agent agent, String tool, String args, int calls) {
    ContentResolver resolver = RuntimeEnvironment.getApplication().getContentResolver();
    Uri uri = Uri.parse("content://dev.cetp.appdbbench.tools");
    Bundle extras = new Bundle();
    extras.putString(Wire.EXTRA_TOOL_NAME, tool);
    extras.putString(Wire.EXTRA_ARGS, args);
    Callers.setCallingUid(agent.uid());
    long start = System.nanoTime();
    for (int i = 0; i < calls; i++) {
      Bundle reply = resolver.call(uri, "execute_tool", null, extras);
      if (!Wire.STATUS_SUCCESS.equals(reply.getString(Wire.KEY_STATUS))) {
        throw new AssertionError(tool + ": " + reply);
      }
    }
    return (System.nanoTime() - start) / 1000.0 / calls;
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
