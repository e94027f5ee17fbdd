package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.robolectric.Shadows.shadowOf;

import android.Manifest;
import android.app.Notification;
import android.app.NotificationManager;
import android.content.ComponentName;
import android.content.Intent;
import android.content.pm.ActivityInfo;
import android.content.pm.PackageManager;
import android.content.pm.ResolveInfo;
import android.os.Looper;
import android.os.Process;
import android.view.MotionEvent;
import android.view.WindowManager;
import android.widget.CompoundButton;
import android.widget.TextView;
import dev.cetp.e2e.category.AuthProviderBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.ApexPlugin;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.ConsentDialog;
import dev.cetp.testkit.ToolReply;
// Internal: hostile and unattributed launches, obscured touches, views by key, the admin state.
import dev.cetp.testkit.internal.ConsentAdmin;
import dev.cetp.testkit.internal.ConsentScreens;
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
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.shadows.ShadowSystemClock;
import org.robolectric.shadows.ShadowToast;

/**
 * The consent dialog under attack, on {@code tests/auth-provider}: touches through another app's
 * window (wholly or partly covering the dialog), a tap the moment the dialog appears, hostile app
 * labels, a look-alike app that keeps asking so its request is on top or that asked first, crafted
 * extras on the exported entry, other apps starting the app's own entries, and the approval
 * notification's throttle. Runs in {@code bundle-auth-provider}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(AuthProviderBundle.class)
public class ConsentDialogAttackTest {
  static final String PACKAGE = "dev.cetp.authfixture";
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

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  private Agent agent;
  private Agent twin;
  /** Hostile and unattributed launches, which the kit does not make: closed after each test. */
  private final ConsentScreensOpened screens = new ConsentScreensOpened();

  @Before
  public void setUp() throws IOException {
    File clock = new File(cetp.context().getFilesDir(), CLOCK_FILE);
    Files.write(clock.toPath(), Long.toString(START_MS).getBytes(StandardCharsets.US_ASCII));
    agent = cetp.agent(AGENT, "ClawSeed", AGENT_UID, AGENT_CERT);
    twin = cetp.agent(TWIN, "ClawSeed", TWIN_UID, TWIN_CERT);
  }

  @After
  public void tearDown() {
    screens.closeAll();
  }

  private static ToolReply ask(Agent caller) {
    return caller.call("count_entries", "{}");
  }

  /** {@code caller} asks, is refused, and opens the dialog it is sent to. */
  private static ConsentDialog asks(Agent caller) {
    return ConsentScreensOpened.asks(caller, "count_entries");
  }

  private static boolean checked(ConsentScreens screen, String tag) {
    return ((CompoundButton) screen.find(tag)).isChecked();
  }

  @Test
  public void touchesThroughAnotherWindowDecideNothing() throws Exception {
    ConsentDialog dialog = asks(agent);
    ConsentScreens screen = ConsentScreens.of(dialog);
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
      assertFalse("flags " + flag, dialog.isFinishing());
      assertEquals(1, ConsentAdmin.pending().length());
      assertEquals(0, ConsentAdmin.grants().length());
      assertEquals(0, ConsentAdmin.state().getJSONArray("denials").length());
      assertEquals("AUTH_REQUIRED", ask(agent).errorCode());
    }
    // The same touches without an overlay work: the test can see a refusal.
    screen.touch("cetp:duration:hour", 0);
    assertTrue(checked(screen, "cetp:duration:hour"));
    screen.touch("cetp:access:limited", 0);
    assertTrue(checked(screen, "cetp:access:limited"));
    screen.touch("cetp:allow", 0);
    assertTrue(dialog.isFinishing());
    JSONObject grant = ConsentAdmin.grants().getJSONObject(0);
    assertEquals("limited", grant.getString("access"));
    assertEquals(3_600_000L, grant.getLong("expires_at_ms") - grant.getLong("granted_at_ms"));
  }

  @Test
  public void allowIsEnabledOnlyAfterTheDelay() {
    assertEquals("AUTH_REQUIRED", ask(agent).errorCode());
    // Opened without the pause a reading user makes (the kit's dialog waits for the delay).
    ConsentScreens screen = screens.keep(ConsentScreens.launchWithoutWaiting(new Intent(AUTHORIZE)));
    assertFalse(screen.find("cetp:allow").isEnabled());
    screen.touch("cetp:allow", 0);
    assertEquals("a tap the moment the dialog appears", 0, ConsentAdmin.grants().length());
    Duration delay = ConsentScreens.allowDelay();
    assertTrue(delay.toMillis() >= 300);
    shadowOf(Looper.getMainLooper()).idleFor(delay.minusMillis(1));
    assertFalse(screen.find("cetp:allow").isEnabled());
    shadowOf(Looper.getMainLooper()).idleFor(Duration.ofMillis(1));
    assertTrue(screen.find("cetp:allow").isEnabled());
    screen.touch("cetp:allow", 0);
    assertEquals(1, ConsentAdmin.grants().length());
  }

  @Test
  public void theDialogHidesOtherAppsOverlays() throws Exception {
    ConsentDialog dialog = asks(agent);
    int hide =
        WindowManager.LayoutParams.class
            .getField("SYSTEM_FLAG_HIDE_NON_SYSTEM_OVERLAY_WINDOWS")
            .getInt(null);
    int flags =
        WindowManager.LayoutParams.class
            .getField("privateFlags")
            .getInt(dialog.activity().getWindow().getAttributes());
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
    List<ConsentDialog> dialogs = new ArrayList<>();
    for (String[] c : cases) {
      uid++;
      ConsentDialog dialog =
          asks(cetp.agent(c[0], c[1], uid, c[0].getBytes(StandardCharsets.UTF_8)));
      dialogs.add(dialog);
      String question = dialog.question();
      assertFalse(question, question.contains("\n"));
      assertFalse(question, question.contains("\u202E") || question.contains("\u202C"));
      assertFalse(question, question.contains("\u0007"));
      assertFalse(question, question.contains("<b>"));
      assertTrue(question.length() + " chars", question.length() < 200);
      assertEquals(c[0], dialog.texts().get(1));
      dialog.deny();
    }
    ConsentDialog last = dialogs.get(2);
    assertTrue(last.text(), last.texts().get(0).contains("AAAA\u2026"));
  }

  @Test
  public void theDialogOpenedByAnAppOffersOnlyThatAppsRequest() throws Exception {
    ToolReply agentRefused = ask(agent);
    assertEquals("AUTH_REQUIRED", agentRefused.errorCode());
    // A look-alike labelled like the agent keeps asking, so its request is the newest.
    ToolReply twinRefused = null;
    for (int i = 0; i < 20; i++) {
      twinRefused = ask(twin);
      assertEquals("AUTH_REQUIRED", twinRefused.errorCode());
    }
    JSONArray pending = ConsentAdmin.pending();
    assertEquals(2, pending.length());

    ConsentDialog agentScreen = agent.openConsentDialog(agentRefused);
    assertEquals(agentScreen.text(), AGENT, agentScreen.texts().get(1));
    assertNull(
        "one app's request only", ConsentScreens.of(agentScreen).find("cetp:package:1"));
    assertFalse(agentScreen.text(), agentScreen.text().contains(TWIN));
    agentScreen.allow();
    assertTrue(agentScreen.isFinishing());
    assertEquals(
        "Saved. 1 more request is waiting; open this screen again to answer it.",
        ShadowToast.getTextOfLatestToast());
    assertEquals("42", ask(agent).data());
    assertEquals("AUTH_REQUIRED", ask(twin).errorCode());
    JSONArray grants = ConsentAdmin.grants();
    assertEquals(1, grants.length());
    assertEquals(AGENT, grants.getJSONObject(0).getString("package"));

    // Opened by the look-alike: its own request, under its own package and certificate.
    ConsentDialog twinScreen = twin.openConsentDialog(twinRefused);
    assertEquals(twinScreen.text(), TWIN, twinScreen.texts().get(1));
    // Opened by an app that asked nothing (no refused call sent it there): nothing to decide,
    // whatever else waits.
    Agent quiet = cetp.agent("com.example.bystander", "Bystander", 10_800, new byte[] {1});
    ConsentScreens bystander =
        screens.keep(ConsentScreens.launchFrom(quiet.packageName(), new Intent(AUTHORIZE)));
    assertTrue(bystander.text(), bystander.texts().contains("No app is waiting for your approval right now."));
    assertNull(bystander.find("cetp:allow"));
  }

  /**
   * Opened with a plain startActivity (Android does not say by whom): every pending request is
   * listed, each app by label, package and certificate, and none is chosen for the user, who
   * answers each one.
   */
  @Test
  public void anUnattributedLaunchListsEveryPendingRequest() throws Exception {
    assertEquals("AUTH_REQUIRED", ask(twin).errorCode());
    assertEquals("AUTH_REQUIRED", ask(agent).errorCode());
    ConsentScreens screen = screens.keep(ConsentScreens.launchUnattributed(new Intent(AUTHORIZE)));
    List<String> texts = screen.texts();
    assertEquals(screen.text(), "2 apps want to read from Diary", texts.get(0));
    assertNull("no request chosen for the user", screen.find("cetp:allow"));
    assertNull(screen.find("cetp:deny"));
    // Both, in order of first request, each identified.
    assertEquals("ClawSeed", ((TextView) screen.find("cetp:app:0")).getText().toString());
    assertEquals(TWIN, ((TextView) screen.find("cetp:app_package:0")).getText().toString());
    assertEquals(AGENT, ((TextView) screen.find("cetp:app_package:1")).getText().toString());
    assertTrue(screen.text(), texts.contains("Certificate " + NotesAuthorizationE2ETest.fingerprint(TWIN_CERT)));
    assertTrue(screen.text(), texts.contains("Certificate " + NotesAuthorizationE2ETest.fingerprint(AGENT_CERT)));
    assertNull(screen.find("cetp:review:2"));

    // The user looks at the look-alike and declines it; back on the list, the agent remains.
    screen.tap("cetp:review:0");
    assertEquals(screen.text(), TWIN, screen.texts().get(1));
    screen.tap("cetp:deny");
    assertFalse(screen.isFinishing());
    assertEquals(screen.text(), "1 app wants to read from Diary", screen.texts().get(0));
    assertEquals(AGENT, ((TextView) screen.find("cetp:app_package:0")).getText().toString());
    screen.tap("cetp:review:0").tap("cetp:allow");
    assertTrue("nothing left to answer", screen.isFinishing());
    assertEquals("42", ask(agent).data());
    assertEquals("PERMISSION_DENIED", ask(twin).errorCode());
  }

  /**
   * The look-alike of an agent (its label, another package and certificate) asks first; the
   * real agent asks through the Apex plugin Service and taps the notification it posts. The
   * dialog shows the agent's request, never the look-alike's.
   */
  @Test
  public void aLookAlikeThatAskedFirstIsNeverWhatTheNotificationShows() throws Exception {
    ApexPlugin apexPlugin = cetp.agent(APEX, "Apex", APEX_UID, APEX_CERT).apex(APEX_HOST);
    ApexPlugin lookAlikePlugin =
        cetp.agent(LOOK_ALIKE, "Apex", LOOK_ALIKE_UID, TWIN_CERT).apex(APEX_HOST);
    shadowOf(RuntimeEnvironment.getApplication())
        .grantPermissions(Manifest.permission.POST_NOTIFICATIONS);
    lookAlikePlugin.call(COUNT, "{}").assertError("AUTH_REQUIRED");
    apexPlugin.call(COUNT, "{}").assertError("AUTH_REQUIRED");
    assertEquals(LOOK_ALIKE, ConsentAdmin.pending().getJSONObject(0).getJSONArray("packages").getJSONObject(0).getString("name"));

    // Each app has its own notification, naming its package.
    Notification apex = notification(APEX_UID);
    Notification lookAlike = notification(LOOK_ALIKE_UID);
    assertEquals("Apex wants to use Diary", shadowOf(apex).getContentTitle().toString());
    assertTrue(shadowOf(apex).getContentText().toString(), shadowOf(apex).getContentText().toString().startsWith(APEX + " is asking"));
    assertTrue(shadowOf(lookAlike).getContentText().toString(), shadowOf(lookAlike).getContentText().toString().startsWith(LOOK_ALIKE + " is asking"));

    // The user taps the notification: the app's own PendingIntent starts the dialog.
    ConsentScreens screen =
        screens.keep(ConsentScreens.launchExplicit(shadowOf(apex.contentIntent).getSavedIntent()));
    assertEquals(screen.text(), "Allow Apex to read your diary entries from Diary?", screen.texts().get(0));
    assertEquals(screen.text(), APEX, screen.texts().get(1));
    assertFalse(screen.text(), screen.text().contains(LOOK_ALIKE));
    assertNull("one app's request only", screen.find("cetp:package:1"));
    screen.tap("cetp:allow");
    assertTrue(screen.isFinishing());
    assertEquals("42", apexPlugin.call(COUNT, "{}").data());
    lookAlikePlugin.call(COUNT, "{}").assertError("AUTH_REQUIRED");
  }

  /** Extras on the exported entry, naming another app's UID or request, change nothing. */
  @Test
  public void craftedExtrasOnTheExportedEntryChangeNothing() throws Exception {
    assertEquals("AUTH_REQUIRED", ask(agent).errorCode());
    assertEquals("AUTH_REQUIRED", ask(twin).errorCode());
    String agentRequest = ConsentAdmin.pendingFrom(AGENT_UID).getString("id");
    Intent crafted =
        new Intent(AUTHORIZE)
            .putExtra("dev.cetp.extra.REQUEST_UID", AGENT_UID)
            .putExtra("id", agentRequest)
            .putExtra("uid", AGENT_UID);
    // The look-alike opens it: its own request, whatever the extras say.
    ConsentScreens twinScreen = screens.keep(ConsentScreens.launchFrom(TWIN, crafted));
    assertEquals(twinScreen.text(), TWIN, twinScreen.texts().get(1));
    assertFalse(twinScreen.text(), twinScreen.texts().contains(AGENT));
    // Explicitly naming the exported Activity, unattributed: the list, not the agent's dialog.
    ConsentScreens unattributed =
        screens.keep(
            ConsentScreens.launchUnattributed(
                new Intent(crafted).setClassName(PACKAGE, ConsentScreens.ACTIVITY)));
    assertNull(unattributed.text(), unattributed.find("cetp:allow"));
    assertEquals(unattributed.text(), "2 apps want to read from Diary", unattributed.texts().get(0));
    assertEquals(0, ConsentAdmin.grants().length());
  }

  /**
   * Only this app can start the dialog's own entry (which trusts the UID it names) and Apps with
   * access: both are parsed not exported by the platform's PackageParser from the bundle's
   * resource package, and the platform refuses them to other apps.
   */
  @Test
  public void anotherAppCannotStartTheOwnEntryOrTheGrantsScreen() throws Exception {
    Intent own =
        new Intent()
            .setClassName(PACKAGE, ConsentScreens.OWN_ENTRY)
            .putExtra("dev.cetp.extra.REQUEST_UID", AGENT_UID);
    Intent grants = new Intent(MANAGE).setClassName(PACKAGE, ConsentScreens.GRANTS);
    assertFalse(activity(ConsentScreens.OWN_ENTRY).exported);
    assertEquals(ConsentScreens.ACTIVITY, activity(ConsentScreens.OWN_ENTRY).targetActivity);
    assertFalse(activity(ConsentScreens.GRANTS).exported);
    assertTrue(activity(ConsentScreens.ACTIVITY).exported);
    for (Intent intent : new Intent[] {own, grants, new Intent(MANAGE)}) {
      assertFalse(intent.toString(), ConsentScreens.mayStart(TWIN_UID, intent));
      assertTrue(intent.toString(), ConsentScreens.mayStart(Process.myUid(), intent));
    }
    assertTrue(ConsentScreens.mayStart(TWIN_UID, new Intent(AUTHORIZE)));
    try {
      ConsentScreens.launchFrom(TWIN, own);
      fail("another app started the app's own entry");
    } catch (SecurityException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains("not exported"));
    }
    // Only the exported dialog answers the authorize action; nothing else is reachable by action.
    List<ResolveInfo> authorize = ConsentScreens.resolve(AUTHORIZE);
    assertEquals(authorize.toString(), 1, authorize.size());
    assertEquals(ConsentScreens.ACTIVITY, authorize.get(0).activityInfo.name);
  }

  /**
   * However often an app is refused, its notification is posted at most once per interval
   * (Robolectric's clock moves; nothing sleeps); another app gets its own at once.
   */
  @Test
  public void theApprovalNotificationIsPostedOncePerAppPerInterval() throws Exception {
    ApexPlugin apexPlugin = cetp.agent(APEX, "Apex", APEX_UID, APEX_CERT).apex(APEX_HOST);
    ApexPlugin lookAlikePlugin =
        cetp.agent(LOOK_ALIKE, "Apex", LOOK_ALIKE_UID, TWIN_CERT).apex(APEX_HOST);
    shadowOf(RuntimeEnvironment.getApplication())
        .grantPermissions(Manifest.permission.POST_NOTIFICATIONS);
    NotificationManager nm = cetp.context().getSystemService(NotificationManager.class);
    java.lang.reflect.Field field =
        Class.forName("dev.cetp.CetpApprovalNotification").getDeclaredField("MIN_INTERVAL_MS");
    field.setAccessible(true);
    long interval = field.getLong(null);
    assertTrue(interval >= 60_000);

    apexPlugin.call(COUNT, "{}").assertError("AUTH_REQUIRED");
    assertEquals(1, shadowOf(nm).size());
    nm.cancelAll(); // the user swipes it away
    for (int i = 0; i < 5; i++) {
      apexPlugin.call(COUNT, "{}").assertError("AUTH_REQUIRED");
    }
    assertEquals("refused again within the interval: no new notification", 0, shadowOf(nm).size());
    ShadowSystemClock.advanceBy(Duration.ofMillis(interval - 1));
    apexPlugin.call(COUNT, "{}").assertError("AUTH_REQUIRED");
    assertEquals(0, shadowOf(nm).size());

    // Another app is not held back by Apex's interval.
    lookAlikePlugin.call(COUNT, "{}").assertError("AUTH_REQUIRED");
    assertEquals(1, shadowOf(nm).size());
    assertNotNull(shadowOf(nm).getNotification(tag(LOOK_ALIKE_UID), NOTIFICATION_ID));

    ShadowSystemClock.advanceBy(Duration.ofMillis(1));
    apexPlugin.call(COUNT, "{}").assertError("AUTH_REQUIRED");
    assertEquals(2, shadowOf(nm).size());
    assertNotNull(shadowOf(nm).getNotification(tag(APEX_UID), NOTIFICATION_ID));
  }

  // ------------------------------------------------------------------------------------------

  static final int APEX_UID = 10_777;
  static final String APEX = "com.apex.agent";
  static final byte[] APEX_CERT = "apex-signing-cert".getBytes(StandardCharsets.UTF_8);
  static final int LOOK_ALIKE_UID = 10_778;
  static final String LOOK_ALIKE = "com.apex.agent.plugins";
  /** The auth fixture's plugin asks for Apex host version 2 ({@code minHostVersion}). */
  static final int APEX_HOST = 2;
  static final String COUNT = "authfixture__count_entries";
  static final String MANAGE = PACKAGE + ".CETP_MANAGE_GRANTS";
  static final int NOTIFICATION_ID = 0x0CE7;

  private static String tag(int uid) {
    return "dev.cetp.approval:" + uid;
  }

  private static Notification notification(int uid) {
    NotificationManager nm = RuntimeEnvironment.getApplication().getSystemService(NotificationManager.class);
    Notification n = shadowOf(nm).getNotification(tag(uid), NOTIFICATION_ID);
    assertNotNull("no notification for uid " + uid + ": " + shadowOf(nm).getAllNotifications(), n);
    return n;
  }

  @SuppressWarnings("deprecation") // getActivityInfo(ComponentName, int): API 33 flag classes
  private static ActivityInfo activity(String name) throws PackageManager.NameNotFoundException {
    return RuntimeEnvironment.getApplication()
        .getPackageManager()
        .getActivityInfo(new ComponentName(PACKAGE, name), 0);
  }
}
