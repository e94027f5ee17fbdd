package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import android.content.Intent;
import android.content.pm.PackageManager;
import dev.cetp.testkit.internal.ConsentScreens;
import dev.cetp.testkit.internal.Callers;
import dev.cetp.testkit.internal.CetpTransport;
import dev.cetp.testkit.ToolReply;
import dev.cetp.testkit.internal.HostBundle;
import dev.cetp.testkit.internal.TestJvm;
import dev.cetp.e2e.category.AuthProviderBundle;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;

/**
 * Grant expiry and rate limits end to end, on {@code tests/auth-provider}: a user-approval
 * provider whose clock reads a file in the app's files directory (see that crate's docs), so the
 * test moves time instead of waiting. ConsentAdmin go through the template's approval screen.
 * Runs in {@code bundle-auth-provider}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(AuthProviderBundle.class)
public class AuthProviderE2ETest {
  static final String PACKAGE = "dev.cetp.authfixture";
  static final String AUTHORITY = "dev.cetp.authfixture.tools";
  static final String AUTHORIZE = PACKAGE + ".CETP_AUTHORIZE";
  /** tests/auth-provider: START_MS, CLOCK_FILE, PING_BURST. */
  static final long START_MS = 1_767_225_600_000L;
  static final String CLOCK_FILE = "cetp-test-clock-ms";
  static final int PING_BURST = 3;
  static final long HOUR_MS = 3_600_000L;

  private PackageManager pm;
  private CetpTransport consumer;
  private final List<ConsentScreens> screens = new ArrayList<>();

  @Before
  public void setUp() throws IOException {
    HostBundle.current().install().startProviders();
    pm = RuntimeEnvironment.getApplication().getPackageManager();
    consumer = new CetpTransport();
    setClock(START_MS);
  }

  @After
  public void tearDown() {
    for (ConsentScreens screen : screens) {
      screen.close();
    }
  }

  private static void setClock(long ms) throws IOException {
    File file = new File(RuntimeEnvironment.getApplication().getFilesDir(), CLOCK_FILE);
    Files.write(file.toPath(), Long.toString(ms).getBytes(StandardCharsets.US_ASCII));
  }

  private ToolReply count() {
    return consumer.executeTool(AUTHORITY, "count_entries", "{}", null);
  }

  private ToolReply ping() {
    return consumer.executeTool(AUTHORITY, "ping", "{}", null);
  }

  private static void assertCode(ToolReply r, String code) {
    assertEquals(r.toString(), "error", r.status());
    assertEquals(r.toString(), code, r.errorCode());
  }

  private ConsentScreens open(String action) {
    ConsentScreens screen = ConsentScreens.launch(new Intent(action));
    screens.add(screen);
    return screen;
  }

  /** A fresh caller at {@code uid}, approved on the screen with {@code duration} (a tag part). */
  private void approveOnScreen(int uid, String duration) {
    Callers.installLabelled(pm, uid, "com.example.agent" + uid, null, ("cert" + uid).getBytes(StandardCharsets.UTF_8));
    Callers.setCallingUid(uid);
    ToolReply first = count();
    assertCode(first, "AUTH_REQUIRED");
    assertEquals(AUTHORIZE, first.authorizeIntent());
    ConsentScreens screen = open(first.authorizeIntent());
    assertTrue(
        screen.text(),
        screen.texts().get(0).startsWith("Allow com.example.agent" + uid + " to read your diary entries"));
    screen.tap("cetp:duration:" + duration).tap("cetp:allow");
    assertTrue(screen.isFinishing());
    assertEquals("42", count().data());
  }

  @Test
  public void jvmIsConfigured() {
    TestJvm.requireConfigured();
  }

  @Test
  public void anApprovalForOneHourLapsesAfterOneHour() throws IOException {
    approveOnScreen(10_001, "hour");
    setClock(START_MS + HOUR_MS - 1);
    assertEquals("42", count().data());
    setClock(START_MS + HOUR_MS);
    ToolReply lapsed = count();
    assertCode(lapsed, "AUTH_REQUIRED");
    assertTrue(lapsed.errorMessage(), lapsed.errorMessage().contains("has expired"));
    assertEquals(AUTHORIZE, lapsed.authorizeIntent());

    // The grants screen says so, in the provider's time.
    ConsentScreens grants = open(PACKAGE + ".CETP_MANAGE_GRANTS");
    assertTrue(grants.text(), grants.texts().stream().anyMatch(t -> t.contains(" \u00b7 expired ")));
    // And the lapsed app asked again: the approval screen shows its new request.
    ConsentScreens again = open(AUTHORIZE);
    assertTrue(again.text(), again.texts().get(0).startsWith("Allow com.example.agent10001 to read "));
  }

  @Test
  public void everyDurationOnTheScreenMeansWhatItSays() throws IOException {
    approveOnScreen(10_002, "day");
    approveOnScreen(10_003, "month");
    approveOnScreen(10_004, "forever");
    long day = 24 * HOUR_MS;
    int[] uids = {10_002, 10_003, 10_004};
    // {last instant still allowed} per caller; forever: ten years later.
    long[] lastAllowed = {START_MS + day - 1, START_MS + 30 * day - 1, START_MS + 3650 * day};
    for (int i = 0; i < uids.length; i++) {
      setClock(lastAllowed[i]);
      Callers.setCallingUid(uids[i]);
      assertEquals("caller " + uids[i], "42", count().data());
      if (i < 2) {
        setClock(lastAllowed[i] + 1);
        assertCode(count(), "AUTH_REQUIRED");
      }
    }
  }

  @Test
  public void aToolWithoutScopesStillNeedsApprovalThenIsRateLimited() throws IOException {
    int uid = 10_010;
    Callers.installLabelled(pm, uid, "com.example.pinger", "Pinger", "pinger".getBytes(StandardCharsets.UTF_8));
    Callers.setCallingUid(uid);
    ToolReply first = ping();
    assertCode(first, "AUTH_REQUIRED");
    ConsentScreens screen = open(first.authorizeIntent());
    assertEquals(screen.text(), "Allow Pinger to use the tools of Diary?", screen.texts().get(0));
    screen.tap("cetp:allow");

    for (int i = 0; i < PING_BURST; i++) {
      assertEquals("call " + i, "\"pong\"", ping().data());
    }
    ToolReply limited = ping();
    assertCode(limited, "RATE_LIMITED");
    assertTrue(limited.errorMessage(), limited.errorMessage().contains("ping"));
    // The approval covered what was asked, no scope: the diary still needs the user.
    assertCode(count(), "AUTH_REQUIRED");
    // One refill interval later (the provider's clock), one more call.
    setClock(START_MS + HOUR_MS);
    assertEquals("\"pong\"", ping().data());
    assertCode(ping(), "RATE_LIMITED");
  }

  @Test
  public void rateLimitsAreCountedPerCaller() throws IOException {
    approveOnScreen(10_020, "forever");
    for (int i = 0; i < PING_BURST; i++) {
      assertTrue(ping().isSuccess());
    }
    assertCode(ping(), "RATE_LIMITED");
    approveOnScreen(10_021, "forever");
    for (int i = 0; i < PING_BURST; i++) {
      assertTrue("a second app has its own budget", ping().isSuccess());
    }
    assertCode(ping(), "RATE_LIMITED");
    Callers.setCallingUid(10_020);
    assertCode(ping(), "RATE_LIMITED");
  }
}
