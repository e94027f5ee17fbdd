package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import android.app.Activity;
import android.content.Intent;
import android.os.StrictMode;
import android.widget.CompoundButton;
import dev.cetp.e2e.category.AuthProviderBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.Approval;
import dev.cetp.testkit.AppsWithAccess;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.ConsentDialog;
import dev.cetp.testkit.ToolReply;
// Internal: the admin bridge's spy, unsettled taps, recreation, unattributed launches, admin state.
import dev.cetp.testkit.internal.AdminBridgeSpy;
import dev.cetp.testkit.internal.ConsentAdmin;
import dev.cetp.testkit.internal.ConsentScreens;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;

/**
 * Nothing slow on the main thread: the consent dialog and Apps with access read the provider's
 * state and save decisions on {@code CetpAdmin}'s background thread, so the main thread never
 * enters the native admin bridge (watched through its seam, {@link AdminBridgeSpy}: on the JVM,
 * file and native I/O do not pass Android's BlockGuard, so StrictMode alone could not fail here).
 * While a decision is being saved the decision controls are disabled, and the dialog copes with
 * being recreated (rotation) or closed meanwhile. Runs in {@code bundle-auth-provider}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(AuthProviderBundle.class)
public class ConsentDialogThreadingTest {
  static final String PACKAGE = "dev.cetp.authfixture";
  static final String AUTHORIZE = PACKAGE + ".CETP_AUTHORIZE";
  static final long START_MS = 1_767_225_600_000L;

  static final int AGENT_UID = 10_123;
  static final String AGENT = "com.clawseed.agent";
  static final int OTHER_UID = 10_124;
  static final String OTHER = "com.example.weatherwidget";

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  private Agent agent;
  private Agent other;
  private AdminBridgeSpy spy;
  /** The request list, opened unattributed (the kit does not): closed after each test. */
  private final ConsentScreensOpened screens = new ConsentScreensOpened();

  @Before
  public void setUp() throws Exception {
    File clock = new File(cetp.context().getFilesDir(), "cetp-test-clock-ms");
    Files.write(clock.toPath(), Long.toString(START_MS).getBytes(StandardCharsets.US_ASCII));
    agent = cetp.agent(AGENT, "ClawSeed", AGENT_UID, "agent".getBytes(StandardCharsets.UTF_8));
    other =
        cetp.agent(OTHER, "Weather Widget", OTHER_UID, "widget".getBytes(StandardCharsets.UTF_8));
    spy = AdminBridgeSpy.install();
  }

  @After
  public void tearDown() throws Exception {
    StrictMode.setThreadPolicy(StrictMode.ThreadPolicy.LAX);
    spy.close();
    screens.closeAll();
  }

  private static ToolReply ask(Agent caller) {
    return caller.call("count_entries", "{}");
  }

  /** {@code caller} asks, is refused, and opens the dialog it is sent to. */
  private static ConsentDialog asks(Agent caller) {
    return ConsentScreensOpened.asks(caller, "count_entries");
  }

  /**
   * Both screens, every way they are opened and every decision, under a StrictMode policy that
   * kills the process on a disk read or write on the main thread; and not one admin request
   * entered the bridge from the main thread.
   */
  @Test
  public void bothScreensKeepAdminWorkOffTheMainThread() throws Exception {
    ToolReply refused = ask(agent);
    assertEquals("AUTH_REQUIRED", refused.errorCode());
    assertEquals("AUTH_REQUIRED", ask(other).errorCode());
    StrictMode.setThreadPolicy(
        new StrictMode.ThreadPolicy.Builder().detectDiskReads().detectDiskWrites().penaltyDeath().build());

    // The dialog opened by the agent: allow.
    ConsentDialog consent = agent.openConsentDialog(refused);
    consent.allow();
    assertTrue(consent.isFinishing());
    // Opened unattributed: the list, then the other app's dialog: deny.
    ConsentScreens list = screens.keep(ConsentScreens.launchUnattributed(new Intent(AUTHORIZE)));
    list.tap("cetp:review:0").tap("cetp:deny");
    assertTrue(list.isFinishing());
    // Apps with access: remove the agent's access, let the other app ask again.
    AppsWithAccess grants = cetp.openAppsWithAccess();
    grants.removeAccess(0);
    grants.letAskAgain(0);
    assertTrue(grants.text(), grants.texts().contains("No app may read your data."));
    assertTrue(grants.text(), grants.texts().contains("You have not declined any app."));
    StrictMode.setThreadPolicy(StrictMode.ThreadPolicy.LAX);

    List<String> ops = new ArrayList<>();
    spy.entries().forEach(e -> ops.add(e.op));
    assertTrue(ops.toString(), ops.containsAll(List.of("state", "approve", "deny", "revoke", "clear_denial")));
    assertEquals("admin requests on the main thread", List.of(), spy.onTheMainThread());
    for (AdminBridgeSpy.Entry entry : spy.entries()) {
      assertEquals(entry.toString(), "cetp-admin", entry.thread);
    }
  }

  /**
   * Allow while the grant is being saved: Allow, Don't allow and every choice are disabled at
   * once; the dialog is recreated (rotation) before the save ends; the new dialog settles the
   * decision (back to the app with RESULT_OK) and nothing is decided twice.
   */
  @Test
  public void aDecisionBeingSavedDisablesTheControlsAndSurvivesRotation() throws Exception {
    ConsentDialog dialog = asks(agent);
    ConsentScreens screen = ConsentScreens.of(dialog);
    spy.hold("approve");
    screen.tapWithoutSettling("cetp:allow");
    for (String control :
        new String[] {"cetp:allow", "cetp:deny", "cetp:duration:hour", "cetp:duration:forever",
            "cetp:access:limited"}) {
      assertFalse(control + " is enabled while the decision is saved", screen.find(control).isEnabled());
    }
    Activity before = dialog.activity();
    screen.recreate();
    assertTrue(before.isDestroyed());
    spy.release();
    ConsentScreens.settle();
    assertTrue(dialog.activity().isFinishing());
    assertEquals(Activity.RESULT_OK, dialog.resultCode());
    assertEquals(1, ConsentAdmin.grants().length());
    assertEquals(0, ConsentAdmin.pending().length());
    assertEquals("42", ask(agent).data());
    long approvals = spy.entries().stream().filter(e -> e.op.equals("approve")).count();
    assertEquals(1, approvals);
  }

  /**
   * Back from Apps with access (or any other screen), the dialog reads the state again, off the
   * main thread, and keeps the user's choices on a request that did not change; a request that
   * was answered meanwhile is gone from it.
   */
  @Test
  public void comingBackKeepsTheChoicesOnAnUnchangedRequest() throws Exception {
    ConsentDialog dialog = asks(agent);
    ConsentScreens screen = ConsentScreens.of(dialog);
    screen.tap("cetp:duration:month").tap("cetp:access:limited");
    int reads = spy.entries().size();
    screen.leaveAndReturn();
    assertTrue("read again", spy.entries().size() > reads);
    assertTrue(((CompoundButton) screen.find("cetp:duration:month")).isChecked());
    assertTrue(((CompoundButton) screen.find("cetp:access:limited")).isChecked());
    // Answered elsewhere meanwhile: nothing left to decide here.
    agent.approvePending(Approval.full());
    screen.leaveAndReturn();
    assertTrue(
        dialog.text(),
        dialog.texts().contains("No app is waiting for your approval right now."));
    assertEquals(List.of(), spy.onTheMainThread());
  }

  /** Closed while Don't allow is being saved: the decision stands, nothing is shown to a gone dialog. */
  @Test
  public void aDialogClosedWhileADecisionIsSavedLeavesTheDecisionStanding() throws Exception {
    ConsentDialog dialog = asks(agent);
    spy.hold("deny");
    ConsentScreens.of(dialog).tapWithoutSettling("cetp:deny");
    dialog.activity().finish();
    spy.release();
    ConsentScreens.settle();
    assertEquals("PERMISSION_DENIED", ask(agent).errorCode());
    assertEquals(1, ConsentAdmin.state().getJSONArray("denials").length());
  }

  /** Apps with access disables its actions while one is being saved, then shows the new state. */
  @Test
  public void theGrantsScreenDisablesItsActionsWhileOneIsSaved() throws Exception {
    assertEquals("AUTH_REQUIRED", ask(agent).errorCode());
    agent.approvePending(Approval.full());
    asks(other).deny();
    ConsentScreens grants = ConsentScreens.of(cetp.openAppsWithAccess());
    spy.hold("revoke");
    grants.tapWithoutSettling("cetp:revoke:0");
    assertFalse(grants.find("cetp:revoke:0").isEnabled());
    assertFalse(grants.find("cetp:allow_again:0").isEnabled());
    spy.release();
    ConsentScreens.settle();
    assertTrue(grants.text(), grants.texts().contains("No app may read your data."));
    assertTrue(grants.find("cetp:allow_again:0").isEnabled());
    assertEquals("AUTH_REQUIRED", ask(agent).errorCode());
  }
}
