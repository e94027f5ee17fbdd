package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import android.app.Service;
import android.content.ComponentName;
import android.content.pm.PackageManager;
import dev.cetp.testkit.internal.ApexAgent;
import dev.cetp.testkit.internal.ConsentAdmin;
import dev.cetp.testkit.internal.Callers;
import dev.cetp.testkit.internal.CetpTransport;
import dev.cetp.testkit.ToolReply;
import dev.cetp.testkit.internal.HostBundle;
import dev.cetp.e2e.category.AuthProviderBundle;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;

/**
 * The auth fixture (user approval, a rate-limited {@code ping}, {@code minHostVersion} 2) served
 * to Apex hosts: an old host refuses the plugin by its metadata; a current one is refused until
 * the user approves it, then rate limited exactly like a CETP consumer, sharing the caller's
 * budget with its CETP calls. Runs in {@code bundle-auth-provider}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(AuthProviderBundle.class)
public class ApexAuthProviderE2ETest {
  static final String PACKAGE = "dev.cetp.authfixture";
  static final String AUTHORITY = "dev.cetp.authfixture.tools";
  static final ComponentName SERVICE = new ComponentName(PACKAGE, "dev.cetp.ApexPluginService");
  static final long START_MS = 1_767_225_600_000L;
  static final int APEX_UID = 10_778;

  private Service service;

  @Before
  public void install() throws Exception {
    HostBundle.current().install().startProviders();
    File clock =
        new File(RuntimeEnvironment.getApplication().getFilesDir(), "cetp-test-clock-ms");
    Files.write(clock.toPath(), Long.toString(START_MS).getBytes(StandardCharsets.US_ASCII));
    PackageManager pm = RuntimeEnvironment.getApplication().getPackageManager();
    Callers.install(pm, APEX_UID, "com.apex.agent", "apex-cert".getBytes(StandardCharsets.UTF_8));
    Callers.setCallingUid(APEX_UID);
    service = ApexAgent.publish(SERVICE, ApexAgent.bindIntent(SERVICE));
  }

  @After
  public void stop() {
    service.onDestroy();
  }

  @Test
  public void a_host_older_than_min_host_version_refuses_the_plugin() throws Exception {
    try {
      new ApexAgent(ApexAgent.Mode.PARCELED, 1).bind(SERVICE);
      fail("a version 1 host registered a plugin that needs version 2");
    } catch (ApexAgent.Refused expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains("needs host version 2"));
    }
    ApexAgent.Plugin plugin = new ApexAgent(ApexAgent.Mode.PARCELED, 2).bind(SERVICE);
    assertEquals(2, plugin.metadata.getInt("minHostVersion"));
  }

  @Test
  public void an_approved_host_is_rate_limited_with_the_callers_cetp_budget() throws Exception {
    ApexAgent.Plugin plugin = new ApexAgent(ApexAgent.Mode.PARCELED, 2).bind(SERVICE);
    ApexAgent.assertError(plugin.execute("authfixture__ping", "{}"), "AUTH_REQUIRED");
    JSONObject request = ConsentAdmin.pendingFrom(APEX_UID);
    ConsentAdmin.approve(request.getString("id"), ConsentAdmin.Access.FULL);
    assertEquals("\"pong\"", plugin.execute("authfixture__ping", "{}"));
    assertEquals("\"pong\"", plugin.execute("authfixture__ping", "{}"));
    // The same app calling over CETP spends the same budget (3 at once).
    ToolReply cetp = new CetpTransport().executeTool(AUTHORITY, "ping", "{}", null);
    assertEquals(cetp.toString(), "\"pong\"", cetp.data());
    String limited = plugin.execute("authfixture__ping", "{}");
    ApexAgent.assertError(limited, "RATE_LIMITED");
    assertTrue(limited, limited.contains("too many calls to `ping`"));
    // The diary scope was not part of the approval.
    ApexAgent.assertError(plugin.execute("authfixture__count_entries", "{}"), "AUTH_REQUIRED");
  }
}
