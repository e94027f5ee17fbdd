package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import android.app.Activity;
import android.content.pm.PackageManager;
import android.os.Process;
import dev.cetp.e2e.category.NotesBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.ApexPlugin;
import dev.cetp.testkit.Approval;
import dev.cetp.testkit.AppsWithAccess;
import dev.cetp.testkit.CallForm;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.ConsentDialog;
import dev.cetp.testkit.ToolReply;
// Internal: the grants in the admin state asserted on, and the kit's fixed UID for the app.
import dev.cetp.testkit.internal.ConsentAdmin;
import dev.cetp.testkit.internal.FixedAppUid;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;

/**
 * The test kit (`dev.cetp.testkit`) as an app's own tests use it, against the notes sample:
 * the rule, agents approved in each way, both hosts, the consent dialog and Apps with access.
 */
@RunWith(RobolectricTestRunner.class)
@Category(NotesBundle.class)
public class TestKitE2ETest {
  static final String PACKAGE = "dev.cetp.samples.notes";
  static final String NOTE = "{\"id\":7}";

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  @Test
  public void theRuleInstallsAndStartsTheBundlesApp() throws Exception {
    assertEquals(PACKAGE, cetp.packageName());
    assertEquals(PACKAGE, cetp.context().getPackageName());
    assertEquals("dev.cetp.samples.notes.tools", cetp.authority());
    Agent agent = cetp.agent("com.example.agent");
    assertEquals(CetpTestRule.FIRST_AGENT_UID, agent.uid());
    assertEquals(
        java.util.List.of("search_notes", "get_note", "list_tags", "notes_between", "find_text"),
        agent.toolNames());
    assertEquals(
        "Notes", agent.providerInfo().assertSuccess().jsonObject().getString("provider_name"));
    assertEquals(CetpTestRule.FIRST_AGENT_UID + 1, cetp.agent("com.example.other").uid());
  }

  /**
   * The app runs under the kit's fixed UID, which no agent gets, so an agent's identity is its
   * own package alone. Under Robolectric's own choice (a random UID per JVM) the app could sit on
   * the UID the kit gives a test's second agent: that agent then shared a UID with the app, and
   * its request listed the app's package beside its own
   * ({@link #anApprovalCoversTheScopesItNamesForAsLongAsItSays} failed on one machine that way).
   */
  @Test
  public void noAgentSharesTheAppsUid() throws Exception {
    assertEquals(FixedAppUid.APP_UID, Process.myUid());
    PackageManager pm = cetp.context().getPackageManager();
    assertEquals(List.of(PACKAGE), Arrays.asList(pm.getPackagesForUid(Process.myUid())));
    for (int i = 0; i < 30; i++) {
      Agent agent = cetp.agent("com.example.agent" + i);
      assertNotEquals(Process.myUid(), agent.uid());
      assertEquals(
          List.of(agent.packageName()), Arrays.asList(pm.getPackagesForUid(agent.uid())));
    }
  }

  @Test
  public void anUnapprovedAgentIsSentToTheDialogWhichAllowsItLimited() throws Exception {
    Agent agent = cetp.agent("com.example.agent", "Example Agent", 10_123, bytes("agent key"));
    ToolReply refused = agent.call("get_note", NOTE).assertError("AUTH_REQUIRED");
    assertEquals(ToolReply.Via.CETP, refused.via());
    assertEquals(PACKAGE + ".CETP_AUTHORIZE", refused.authorizeIntent());
    assertTrue(refused.resolutionHint(), refused.resolutionHint().contains("com.example.agent"));

    try (ConsentDialog dialog = agent.openConsentDialog(refused)) {
      assertTrue(dialog.text(), dialog.question().contains("Example Agent"));
      assertTrue(dialog.text(), dialog.texts().contains("com.example.agent"));
      assertTrue(dialog.sketch().toString(), dialog.sketch().contains("[Allow]"));
      assertTrue(dialog.text(), dialog.offersLimitedAccess());
      dialog.allow(ConsentDialog.Duration.ONE_HOUR, Approval.Access.LIMITED);
      assertEquals(Activity.RESULT_OK, dialog.resultCode());
      assertTrue(dialog.isFinishing());
    }
    JSONObject note = agent.call("get_note", NOTE).assertSuccess().jsonObject();
    assertEquals(7, note.getInt("id"));
    assertFalse("limited access hides bodies: " + note, note.has("body"));
    JSONObject grant = onlyGrant();
    assertEquals(
        3_600_000L, grant.getLong("expires_at_ms") - grant.getLong("granted_at_ms"));
  }

  @Test
  public void anApprovalCoversTheScopesItNamesForAsLongAsItSays() throws Exception {
    Agent agent = cetp.agent("com.example.agent");
    agent.approve(Approval.limited().scopes("tags.read").expiringAfter(Duration.ofDays(1)));
    JSONArray tags = agent.call("list_tags", "{}").assertSuccess().jsonArray();
    assertTrue(tags.length() > 0);
    agent.call("get_note", NOTE).assertError("AUTH_REQUIRED");
    JSONObject grant = onlyGrant();
    assertEquals("limited", grant.getString("access"));
    assertEquals(86_400_000L, grant.getLong("expires_at_ms") - grant.getLong("granted_at_ms"));

    Agent full = cetp.agent("com.example.full").approve(Approval.full());
    assertFalse(full.call("get_note", NOTE).jsonObject().getString("body").isEmpty());
    full.call(CallForm.AUTHORITY, "get_note", NOTE).assertSuccess();
  }

  @Test
  public void theApexHostGetsTypedRepliesFromTheSameApproval() throws Exception {
    Agent apexApp = cetp.agent("com.apex.agent", "Apex", 10_400, bytes("apex key"));
    try (ApexPlugin apex = apexApp.apex()) {
      assertEquals(PACKAGE, apex.metadata().getString("id"));
      assertTrue(apex.tools().toString(), apex.tools().containsKey("notes__get_note"));
      ToolReply refused = apex.call("get_note", NOTE).assertError("AUTH_REQUIRED");
      assertEquals(ToolReply.Via.APEX, refused.via());
      assertNotNull(refused.resolutionHint());
      assertNull(refused.authorizeIntent());
      apex.call("notes__get_note", "{\"id\":0}").assertError("AUTH_REQUIRED");

      apexApp.approve(Approval.full());
      JSONObject note = apex.call("get_note", NOTE).assertSuccess().jsonObject();
      assertFalse(note.getString("body").isEmpty());
      apex.call("get_note", "{\"id\":\"seven\"}")
          .assertError("INVALID_ARGS")
          .assertMessageContains("get_note");
    }
  }

  @Test
  public void dontAllowThenAppsWithAccessLetsItAskAgain() throws Exception {
    Agent agent = cetp.agent("com.example.agent", "Example Agent", 10_123, bytes("agent key"));
    try (ConsentDialog dialog = agent.openConsentDialog(agent.call("get_note", NOTE))) {
      dialog.deny();
      assertEquals(Activity.RESULT_CANCELED, dialog.resultCode());
    }
    agent.call("get_note", NOTE).assertError("PERMISSION_DENIED");
    try (AppsWithAccess apps = cetp.openAppsWithAccess()) {
      assertTrue(apps.text(), apps.texts().contains("Example Agent"));
      apps.letAskAgain(0);
    }
    ToolReply again = agent.call("get_note", NOTE).assertError("AUTH_REQUIRED");

    try (ConsentDialog dialog = agent.openConsentDialog(again)) {
      dialog.allow();
      try (AppsWithAccess apps = dialog.openAppsWithAccess()) {
        assertTrue(apps.text(), apps.texts().contains("Example Agent"));
        apps.removeAccess(0);
      }
    }
    agent.call("get_note", NOTE).assertError("AUTH_REQUIRED");
  }

  @Test
  public void assertionsSayWhatCameInstead() {
    Agent agent = cetp.agent("com.example.agent");
    ToolReply refused = agent.call("get_note", NOTE);
    AssertionError notSuccess = assertThrows(AssertionError.class, refused::assertSuccess);
    assertTrue(notSuccess.getMessage(), notSuccess.getMessage().contains("AUTH_REQUIRED"));
    AssertionError wrongCode =
        assertThrows(AssertionError.class, () -> refused.assertError("INVALID_ARGS"));
    assertTrue(
        wrongCode.getMessage(), wrongCode.getMessage().contains("expected error INVALID_ARGS"));
    assertThrows(AssertionError.class, refused::json);
    ToolReply tools = agent.listTools();
    assertThrows(AssertionError.class, () -> tools.assertError("AUTH_REQUIRED"));
    assertThrows(AssertionError.class, tools::jsonArray);
  }

  private static JSONObject onlyGrant() throws Exception {
    JSONArray grants = ConsentAdmin.grants();
    assertEquals(grants.toString(), 1, grants.length());
    return grants.getJSONObject(0);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }
}
