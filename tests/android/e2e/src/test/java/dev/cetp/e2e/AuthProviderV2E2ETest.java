package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import dev.cetp.e2e.category.AuthProviderBundle;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.CetpV2;
import dev.cetp.testkit.ConsentDialog;
import dev.cetp.testkit.V2Reply;
import dev.cetp.testkit.V2Session;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Instant;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;

/**
 * A CETP v2 session's life on the provider's clock ({@code tests/auth-provider}, whose clock is
 * a file the test writes; the samples read the system's clock, which no test moves): the token
 * answers until the {@code expires_at} that {@code negotiate} gave, then {@code
 * NEGOTIATION_REQUIRED}, and a new negotiation gives a new token that answers. Nothing sleeps.
 */
@RunWith(RobolectricTestRunner.class)
@Category(AuthProviderBundle.class)
public class AuthProviderV2E2ETest {
  /** tests/auth-provider: START_MS, CLOCK_FILE. */
  static final long START_MS = 1_767_225_600_000L;

  static final String CLOCK_FILE = "cetp-test-clock-ms";

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  @Before
  public void startTheClock() throws IOException {
    setClock(START_MS);
  }

  private void setClock(long ms) throws IOException {
    File file = new File(cetp.context().getFilesDir(), CLOCK_FILE);
    Files.write(file.toPath(), Long.toString(ms).getBytes(StandardCharsets.US_ASCII));
  }

  private static long expiresAt(V2Session session) throws Exception {
    return Instant.parse(session.negotiated().getString("expires_at")).toEpochMilli();
  }

  @Test
  public void anExpiredSessionIsRenegotiated() throws Exception {
    V2Session session = cetp.agent("com.example.agent").v2();
    long expiry = expiresAt(session);
    assertTrue("the session outlives its negotiation", expiry > START_MS);
    setClock(expiry - 1);
    session.listTools().assertSuccess();
    setClock(expiry);
    session.listTools().assertError(CetpV2.NEGOTIATION_REQUIRED);
    session.providerInfo().assertError(CetpV2.NEGOTIATION_REQUIRED);
    String old = session.sessionToken();
    session.renegotiate();
    assertNotEquals(old, session.sessionToken());
    assertTrue(expiresAt(session) > expiry);
    session.listTools().assertSuccess();
  }

  /** {@code ping} allows 3 calls, then one an hour: v2 says how long to wait. */
  @Test
  public void aRateLimitedCallSaysWhenToRetry() throws Exception {
    V2Session session = cetp.agent("com.example.agent").v2();
    V2Reply refused = session.call("ping", "{}").assertError(CetpV2.AUTH_REQUIRED);
    try (ConsentDialog dialog = session.openResolution(refused)) {
      dialog.allow();
    }
    assertEquals("pong", session.resume(refused).assertSuccess().value());
    session.call("ping", "{}").assertSuccess();
    session.call("ping", "{}").assertSuccess();
    V2Reply limited = session.call("ping", "{}").assertError(CetpV2.RATE_LIMITED);
    long wait = limited.retryAfterMs();
    assertTrue(limited.toString(), wait > 0 && wait <= 3_600_000L);
    setClock(START_MS + wait - 1);
    session.call("ping", "{}").assertError(CetpV2.RATE_LIMITED);
    setClock(START_MS + wait);
    session.renegotiate(); // an hour's wait may outlive the session
    session.call("ping", "{}").assertSuccess();
  }

  @Test
  public void aDeadlineIsTheProvidersClocks() throws Exception {
    V2Session session = cetp.agent("com.example.agent").v2();
    session.call("ping", "{}", START_MS + 1_000).assertError(CetpV2.AUTH_REQUIRED);
    session.call("ping", "{}", START_MS - 1).assertError(CetpV2.DEADLINE_EXCEEDED);
    setClock(START_MS + 2_000);
    session.call("ping", "{}", START_MS + 1_000).assertError(CetpV2.DEADLINE_EXCEEDED);
    assertEquals(V2Session.LONG_DEADLINE_MS, session.deadlineFor("ping"));
  }
}
