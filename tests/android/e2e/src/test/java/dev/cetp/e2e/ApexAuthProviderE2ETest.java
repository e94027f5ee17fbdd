package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import dev.cetp.e2e.category.AuthProviderBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.ApexPlugin;
import dev.cetp.testkit.Approval;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.ToolReply;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;

/**
 * The auth fixture (user approval, a rate-limited {@code ping}, {@code minHostVersion} 2) served
 * to Apex agents: an old Apex refuses the plugin by its metadata; a current one is refused until
 * the user approves it, then rate limited exactly like a CETP agent, sharing the caller's
 * budget with its CETP calls. Runs in {@code bundle-auth-provider}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(AuthProviderBundle.class)
public class ApexAuthProviderE2ETest {
  static final String PACKAGE = "dev.cetp.authfixture";
  static final String AUTHORITY = "dev.cetp.authfixture.tools";
  static final long START_MS = 1_767_225_600_000L;
  static final int APEX_UID = 10_778;

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  private Agent apex;

  @Before
  public void install() throws Exception {
    File clock = new File(cetp.context().getFilesDir(), "cetp-test-clock-ms");
    Files.write(clock.toPath(), Long.toString(START_MS).getBytes(StandardCharsets.US_ASCII));
    apex =
        cetp.agent(
            "com.apex.agent", null, APEX_UID, "apex-cert".getBytes(StandardCharsets.UTF_8));
  }

  /** An {@code executeTool} error of {@code code}, as Apex's model reads it. */
  private static ToolReply assertApexError(ToolReply reply, String code) {
    assertTrue(reply.text(), reply.text().startsWith("Error: " + code + ": "));
    return reply.assertError(code);
  }

  @Test
  public void a_host_older_than_min_host_version_refuses_the_plugin() throws Exception {
    AssertionError refused =
        assertThrows(
            "a version 1 host registered a plugin that needs version 2",
            AssertionError.class,
            () -> apex.apex(1));
    assertTrue(refused.getMessage(), refused.getMessage().contains("needs host version 2"));
    ApexPlugin plugin = apex.apex(2);
    assertEquals(2, plugin.metadata().getInt("minHostVersion"));
  }

  @Test
  public void an_approved_host_is_rate_limited_with_the_callers_cetp_budget() throws Exception {
    ApexPlugin plugin = apex.apex(2);
    assertApexError(plugin.call("authfixture__ping", "{}"), "AUTH_REQUIRED");
    apex.approvePending(Approval.full());
    assertEquals("\"pong\"", plugin.call("authfixture__ping", "{}").text());
    assertEquals("\"pong\"", plugin.call("authfixture__ping", "{}").text());
    // The same app calling over CETP spends the same budget (3 at once).
    ToolReply overCetp = apex.call("ping", "{}");
    assertEquals(overCetp.toString(), "\"pong\"", overCetp.data());
    ToolReply limited = plugin.call("authfixture__ping", "{}");
    assertApexError(limited, "RATE_LIMITED");
    assertTrue(limited.text(), limited.text().contains("too many calls to `ping`"));
    // The diary scope was not part of the approval.
    assertApexError(plugin.call("authfixture__count_entries", "{}"), "AUTH_REQUIRED");
  }
}
