package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.cetp.e2e.category.AuthProviderBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.Approval;
import dev.cetp.testkit.AppsWithAccess;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.ConsentDialog;
import dev.cetp.testkit.ToolReply;
// Internal: the suite's own JVM checks (-Xcheck:jni), which no app's test makes.
import dev.cetp.testkit.internal.TestJvm;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;

/**
 * Grant expiry and rate limits end to end, on {@code tests/auth-provider}: a user-approval
 * provider whose clock reads a file in the app's files directory (see that crate's docs), so the
 * test moves time instead of waiting. Approvals go through the template's consent dialog. Runs
 * in {@code bundle-auth-provider}.
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

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  @Before
  public void setUp() throws IOException {
    setClock(START_MS);
  }

  private void setClock(long ms) throws IOException {
    File file = new File(cetp.context().getFilesDir(), CLOCK_FILE);
    Files.write(file.toPath(), Long.toString(ms).getBytes(StandardCharsets.US_ASCII));
  }

  private static ToolReply count(Agent agent) {
    return agent.call("count_entries", "{}");
  }

  private static ToolReply ping(Agent agent) {
    return agent.call("ping", "{}");
  }

  private static void assertCode(ToolReply r, String code) {
    assertEquals(r.toString(), "error", r.status());
    assertEquals(r.toString(), code, r.errorCode());
  }

  /** A fresh agent at {@code uid}, approved on the dialog for {@code duration}. */
  private Agent approveOnScreen(int uid, ConsentDialog.Duration duration) {
    Agent agent =
        cetp.agent(
            "com.example.agent" + uid, null, uid, ("cert" + uid).getBytes(StandardCharsets.UTF_8));
    ToolReply first = count(agent);
    assertCode(first, "AUTH_REQUIRED");
    assertEquals(AUTHORIZE, first.authorizeIntent());
    ConsentDialog dialog = agent.openConsentDialog(first);
    String question = "Allow com.example.agent" + uid + " to read your diary entries";
    assertTrue(dialog.text(), dialog.question().startsWith(question));
    dialog.allow(duration, Approval.Access.FULL);
    assertTrue(dialog.isFinishing());
    assertEquals("42", count(agent).data());
    return agent;
  }

  @Test
  public void jvmIsConfigured() {
    TestJvm.requireConfigured();
  }

  @Test
  public void anApprovalForOneHourLapsesAfterOneHour() throws IOException {
    Agent agent = approveOnScreen(10_001, ConsentDialog.Duration.ONE_HOUR);
    setClock(START_MS + HOUR_MS - 1);
    assertEquals("42", count(agent).data());
    setClock(START_MS + HOUR_MS);
    ToolReply lapsed = count(agent);
    assertCode(lapsed, "AUTH_REQUIRED");
    assertTrue(lapsed.errorMessage(), lapsed.errorMessage().contains("has expired"));
    assertEquals(AUTHORIZE, lapsed.authorizeIntent());

    // Apps with access says so, in the provider's time.
    AppsWithAccess grants = cetp.openAppsWithAccess();
    assertTrue(
        grants.text(), grants.texts().stream().anyMatch(t -> t.contains(" \u00b7 expired ")));
    // And the lapsed app asked again: the consent dialog shows its new request.
    ConsentDialog again = agent.openConsentDialog(lapsed);
    assertTrue(again.text(), again.question().startsWith("Allow com.example.agent10001 to read "));
  }

  @Test
  public void everyDurationOnTheScreenMeansWhatItSays() throws IOException {
    Agent[] agents = {
      approveOnScreen(10_002, ConsentDialog.Duration.ONE_DAY),
      approveOnScreen(10_003, ConsentDialog.Duration.THIRTY_DAYS),
      approveOnScreen(10_004, ConsentDialog.Duration.UNTIL_REVOKED)
    };
    long day = 24 * HOUR_MS;
    // {last instant still allowed} per caller; forever: ten years later.
    long[] lastAllowed = {START_MS + day - 1, START_MS + 30 * day - 1, START_MS + 3650 * day};
    for (int i = 0; i < agents.length; i++) {
      setClock(lastAllowed[i]);
      assertEquals("caller " + agents[i].uid(), "42", count(agents[i]).data());
      if (i < 2) {
        setClock(lastAllowed[i] + 1);
        assertCode(count(agents[i]), "AUTH_REQUIRED");
      }
    }
  }

  @Test
  public void aToolWithoutScopesStillNeedsApprovalThenIsRateLimited() throws IOException {
    byte[] certificate = "pinger".getBytes(StandardCharsets.UTF_8);
    Agent pinger = cetp.agent("com.example.pinger", "Pinger", 10_010, certificate);
    ToolReply first = ping(pinger);
    assertCode(first, "AUTH_REQUIRED");
    ConsentDialog dialog = pinger.openConsentDialog(first);
    assertEquals(dialog.text(), "Allow Pinger to use the tools of Diary?", dialog.question());
    dialog.allow();

    for (int i = 0; i < PING_BURST; i++) {
      assertEquals("call " + i, "\"pong\"", ping(pinger).data());
    }
    ToolReply limited = ping(pinger);
    assertCode(limited, "RATE_LIMITED");
    assertTrue(limited.errorMessage(), limited.errorMessage().contains("ping"));
    // The approval covered what was asked, no scope: the diary still needs the user.
    assertCode(count(pinger), "AUTH_REQUIRED");
    // One refill interval later (the provider's clock), one more call.
    setClock(START_MS + HOUR_MS);
    assertEquals("\"pong\"", ping(pinger).data());
    assertCode(ping(pinger), "RATE_LIMITED");
  }

  @Test
  public void rateLimitsAreCountedPerCaller() throws IOException {
    Agent first = approveOnScreen(10_020, ConsentDialog.Duration.UNTIL_REVOKED);
    for (int i = 0; i < PING_BURST; i++) {
      assertTrue(ping(first).isSuccess());
    }
    assertCode(ping(first), "RATE_LIMITED");
    Agent second = approveOnScreen(10_021, ConsentDialog.Duration.UNTIL_REVOKED);
    for (int i = 0; i < PING_BURST; i++) {
      assertTrue("a second app has its own budget", ping(second).isSuccess());
    }
    assertCode(ping(second), "RATE_LIMITED");
    assertCode(ping(first), "RATE_LIMITED");
  }
}
