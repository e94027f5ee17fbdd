package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.robolectric.Shadows.shadowOf;

import android.content.Intent;
import android.content.pm.PackageManager;
import android.os.Looper;
import android.view.MotionEvent;
import android.view.WindowManager;
import android.widget.CompoundButton;
import dev.cetp.harness.ApprovalScreen;
import dev.cetp.harness.Approvals;
import dev.cetp.harness.Callers;
import dev.cetp.harness.CetpConsumer;
import dev.cetp.harness.CetpResponse;
import dev.cetp.harness.HostBundle;
import dev.cetp.harness.category.AuthProviderBundle;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.shadows.ShadowToast;

/**
 * The approval dialog under attack, on {@code tests/auth-provider}: touches through another app's
 * window (wholly or partly covering the dialog), a tap the moment the dialog appears, hostile app
 * labels, and a look-alike app that keeps asking so its request is on top. Runs in {@code
 * bundle-auth-provider}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(AuthProviderBundle.class)
public class ApprovalScreenAttackTest {
  static final String PACKAGE = "dev.cetp.authfixture";
  static final String AUTHORITY = "dev.cetp.authfixture.tools";
  static final String AUTHORIZE = PACKAGE + ".CETP_AUTHORIZE";
  static final String CLOCK_FILE = "cetp-test-clock-ms";
  static final long START_MS = 1_767_225_600_000L;

  static final int AGENT_UID = 10_123;
  static final String AGENT = "com.clawseed.agent";
  static final byte[] AGENT_CERT = "agent-signing-cert".getBytes(StandardCharsets.UTF_8);
  static final int TWIN_UID = 10_666;
  static final String TWIN = "com.clawseed.agent.helper";
  static final byte[] TWIN_CERT = "twin-cert".getBytes(StandardCharsets.UTF_8);

  static final int[] OVERLAY_FLAGS = {
    MotionEvent.FLAG_WINDOW_IS_OBSCURED, MotionEvent.FLAG_WINDOW_IS_PARTIALLY_OBSCURED
  };

  private PackageManager pm;
  private CetpConsumer consumer;
  private final List<ApprovalScreen> screens = new ArrayList<>();

  @Before
  public void setUp() throws IOException {
    HostBundle.current().install().startProviders();
    pm = RuntimeEnvironment.getApplication().getPackageManager();
    consumer = new CetpConsumer();
    File clock = new File(RuntimeEnvironment.getApplication().getFilesDir(), CLOCK_FILE);
    Files.write(clock.toPath(), Long.toString(START_MS).getBytes(StandardCharsets.US_ASCII));
    Callers.installLabelled(pm, AGENT_UID, AGENT, "ClawSeed", AGENT_CERT);
    Callers.installLabelled(pm, TWIN_UID, TWIN, "ClawSeed", TWIN_CERT);
  }

  @After
  public void tearDown() {
    for (ApprovalScreen screen : screens) {
      screen.close();
    }
  }

  private CetpResponse ask(int uid) {
    Callers.setCallingUid(uid);
    return consumer.executeTool(AUTHORITY, "count_entries", "{}", null);
  }

  private ApprovalScreen openFrom(String pkg) {
    ApprovalScreen screen = ApprovalScreen.launchFrom(pkg, new Intent(AUTHORIZE));
    screens.add(screen);
    return screen;
  }

  private static boolean checked(ApprovalScreen screen, String tag) {
    return ((CompoundButton) screen.find(tag)).isChecked();
  }

  @Test
  public void touchesThroughAnotherWindowDecideNothing() throws Exception {
    assertEquals("AUTH_REQUIRED", ask(AGENT_UID).errorCode());
    ApprovalScreen screen = openFrom(AGENT);
    for (int flag : OVERLAY_FLAGS) {
      for (String tag :
          new String[] {"cetp:duration:hour", "cetp:duration:month", "cetp:duration:forever",
              "cetp:access:limited"}) {
        screen.touch(tag, flag);
        assertFalse(tag + " changed by a touch with flags " + flag, checked(screen, tag));
      }
      assertTrue(checked(screen, "cetp:duration:day"));
      assertTrue(checked(screen, "cetp:access:full"));
      screen.touch("cetp:allow", flag);
      screen.touch("cetp:deny", flag);
      assertFalse("flags " + flag, screen.isFinishing());
      assertEquals(1, Approvals.pending().length());
      assertEquals(0, Approvals.grants().length());
      assertEquals(0, Approvals.state().getJSONArray("denials").length());
      assertEquals("AUTH_REQUIRED", ask(AGENT_UID).errorCode());
    }
    // The same touches without an overlay work: the test can see a refusal.
    screen.touch("cetp:duration:hour", 0);
    assertTrue(checked(screen, "cetp:duration:hour"));
    screen.touch("cetp:access:limited", 0);
    assertTrue(checked(screen, "cetp:access:limited"));
    screen.touch("cetp:allow", 0);
    assertTrue(screen.isFinishing());
    JSONObject grant = Approvals.grants().getJSONObject(0);
    assertEquals("limited", grant.getString("access"));
    assertEquals(3_600_000L, grant.getLong("expires_at_ms") - grant.getLong("granted_at_ms"));
  }

  @Test
  public void allowIsEnabledOnlyAfterTheDelay() {
    assertEquals("AUTH_REQUIRED", ask(AGENT_UID).errorCode());
    ApprovalScreen screen = ApprovalScreen.launchWithoutWaiting(new Intent(AUTHORIZE));
    screens.add(screen);
    assertFalse(screen.find("cetp:allow").isEnabled());
    screen.touch("cetp:allow", 0);
    assertEquals("a tap the moment the dialog appears", 0, Approvals.grants().length());
    Duration delay = ApprovalScreen.allowDelay();
    assertTrue(delay.toMillis() >= 300);
    shadowOf(Looper.getMainLooper()).idleFor(delay.minusMillis(1));
    assertFalse(screen.find("cetp:allow").isEnabled());
    shadowOf(Looper.getMainLooper()).idleFor(Duration.ofMillis(1));
    assertTrue(screen.find("cetp:allow").isEnabled());
    screen.touch("cetp:allow", 0);
    assertEquals(1, Approvals.grants().length());
  }

  @Test
  public void theDialogHidesOtherAppsOverlays() throws Exception {
    assertEquals("AUTH_REQUIRED", ask(AGENT_UID).errorCode());
    ApprovalScreen screen = openFrom(AGENT);
    int hide =
        WindowManager.LayoutParams.class
            .getField("SYSTEM_FLAG_HIDE_NON_SYSTEM_OVERLAY_WINDOWS")
            .getInt(null);
    int flags =
        WindowManager.LayoutParams.class
            .getField("privateFlags")
            .getInt(screen.activity().getWindow().getAttributes());
    assertTrue(Integer.toHexString(flags), (flags & hide) != 0);
  }

  @Test
  public void hostileLabelsAreShownSanitized() {
    String[][] cases = {
      {"com.example.newline", "Weather\nClawSeed was approved by you"},
      {"com.example.bidi", "\u202Edeeswalc\u202C Notes"},
      {"com.example.long", "A".repeat(10_000)},
      {"com.example.markup", "<b>Claw</b>Seed&#10;\u0007"},
    };
    int uid = 10_700;
    for (String[] c : cases) {
      uid++;
      Callers.installLabelled(pm, uid, c[0], c[1], c[0].getBytes(StandardCharsets.UTF_8));
      assertEquals("AUTH_REQUIRED", ask(uid).errorCode());
      ApprovalScreen screen = openFrom(c[0]);
      String question = screen.texts().get(0);
      assertFalse(question, question.contains("\n"));
      assertFalse(question, question.contains("\u202E") || question.contains("\u202C"));
      assertFalse(question, question.contains("\u0007"));
      assertFalse(question, question.contains("<b>"));
      assertTrue(question.length() + " chars", question.length() < 200);
      assertEquals(c[0], screen.texts().get(1));
      screen.tap("cetp:deny");
    }
    ApprovalScreen last = screens.get(2);
    assertTrue(last.text(), last.texts().get(0).contains("AAAA\u2026"));
  }

  @Test
  public void theDialogOpenedByAnAppOffersOnlyThatAppsRequest() throws Exception {
    assertEquals("AUTH_REQUIRED", ask(AGENT_UID).errorCode());
    // A look-alike labelled like the agent keeps asking, so its request is the newest.
    for (int i = 0; i < 20; i++) {
      assertEquals("AUTH_REQUIRED", ask(TWIN_UID).errorCode());
    }
    JSONArray pending = Approvals.pending();
    assertEquals(2, pending.length());

    ApprovalScreen agentScreen = openFrom(AGENT);
    assertEquals(agentScreen.text(), AGENT, agentScreen.texts().get(1));
    assertNull("one app's request only", agentScreen.find("cetp:package:1"));
    assertFalse(agentScreen.text(), agentScreen.text().contains(TWIN));
    agentScreen.tap("cetp:allow");
    assertTrue(agentScreen.isFinishing());
    assertEquals(
        "Saved. 1 more requests are waiting; open this screen again to answer them.",
        ShadowToast.getTextOfLatestToast());
    assertEquals("42", ask(AGENT_UID).data());
    assertEquals("AUTH_REQUIRED", ask(TWIN_UID).errorCode());
    JSONArray grants = Approvals.grants();
    assertEquals(1, grants.length());
    assertEquals(AGENT, grants.getJSONObject(0).getString("package"));

    // Opened by the look-alike: its own request, under its own package and certificate.
    ApprovalScreen twinScreen = openFrom(TWIN);
    assertEquals(twinScreen.text(), TWIN, twinScreen.texts().get(1));
    // Opened by an app that asked nothing: nothing to decide, whatever else waits.
    Callers.installLabelled(pm, 10_800, "com.example.bystander", "Bystander", new byte[] {1});
    ApprovalScreen bystander = openFrom("com.example.bystander");
    assertTrue(bystander.text(), bystander.texts().contains("No app is waiting for your approval right now."));
    assertNull(bystander.find("cetp:allow"));
  }

  @Test
  public void withoutAKnownLauncherTheOldestRequestIsShown() {
    assertEquals("AUTH_REQUIRED", ask(AGENT_UID).errorCode());
    for (int i = 0; i < 5; i++) {
      assertEquals("AUTH_REQUIRED", ask(TWIN_UID).errorCode());
    }
    ApprovalScreen screen = ApprovalScreen.launch(new Intent(AUTHORIZE));
    screens.add(screen);
    assertEquals(screen.text(), AGENT, screen.texts().get(1));
  }
}
