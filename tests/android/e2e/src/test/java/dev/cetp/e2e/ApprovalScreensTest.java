package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import android.content.Intent;
import android.content.pm.ApplicationInfo;
import android.content.pm.PackageManager;
import android.graphics.Bitmap;
import dev.cetp.harness.Accessibility;
import dev.cetp.harness.ApprovalScreen;
import dev.cetp.harness.Callers;
import dev.cetp.harness.CetpConsumer;
import dev.cetp.harness.CetpResponse;
import dev.cetp.harness.HostBundle;
import dev.cetp.harness.Screenshots;
import dev.cetp.harness.category.AuthProviderBundle;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TimeZone;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;
import org.robolectric.annotation.GraphicsMode;

/**
 * What the phone's owner sees, on {@code tests/auth-provider} ("Diary", a fixed clock): the consent
 * dialog and the grants screen rendered with native graphics on a 411 × 891 dp phone, in the light
 * and the night theme, right to left and with large fonts on a 360 dp phone, compared with golden
 * PNGs ({@link Screenshots}) and checked for accessibility ({@link Accessibility}). Runs in {@code
 * bundle-auth-provider}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(AuthProviderBundle.class)
@GraphicsMode(GraphicsMode.Mode.NATIVE)
@Config(qualifiers = "w411dp-h891dp-port-xhdpi")
public class ApprovalScreensTest {
  static final String PACKAGE = "dev.cetp.authfixture";
  static final String AUTHORITY = "dev.cetp.authfixture.tools";
  static final String AUTHORIZE = PACKAGE + ".CETP_AUTHORIZE";
  static final String MANAGE = PACKAGE + ".CETP_MANAGE_GRANTS";
  static final long START_MS = 1_767_225_600_000L;
  static final String CLOCK_FILE = "cetp-test-clock-ms";

  static final int AGENT_UID = 10_123;
  static final String AGENT = "com.clawseed.agent";
  static final byte[] AGENT_CERT = "agent-signing-cert".getBytes(StandardCharsets.UTF_8);
  static final int OTHER_UID = 10_124;
  static final String OTHER = "com.example.weatherwidget";

  private PackageManager pm;
  private CetpConsumer consumer;
  private final List<ApprovalScreen> screens = new ArrayList<>();
  private TimeZone zone;
  private Locale locale;

  @Before
  public void setUp() throws IOException {
    zone = TimeZone.getDefault();
    locale = Locale.getDefault();
    TimeZone.setDefault(TimeZone.getTimeZone("UTC"));
    Locale.setDefault(Locale.US);
    HostBundle.current().install().startProviders();
    // As an app with android:supportsRtl="true" (the template's README asks for it).
    RuntimeEnvironment.getApplication().getApplicationInfo().flags |= ApplicationInfo.FLAG_SUPPORTS_RTL;
    pm = RuntimeEnvironment.getApplication().getPackageManager();
    consumer = new CetpConsumer();
    setClock(START_MS);
    Callers.installLabelled(pm, AGENT_UID, AGENT, "ClawSeed", AGENT_CERT);
    Callers.installLabelled(pm, OTHER_UID, OTHER, "Weather Widget", "widget".getBytes(StandardCharsets.UTF_8));
  }

  @After
  public void tearDown() {
    for (ApprovalScreen screen : screens) {
      screen.close();
    }
    TimeZone.setDefault(zone);
    Locale.setDefault(locale);
  }

  private static void setClock(long ms) throws IOException {
    File file = new File(RuntimeEnvironment.getApplication().getFilesDir(), CLOCK_FILE);
    Files.write(file.toPath(), Long.toString(ms).getBytes(StandardCharsets.US_ASCII));
  }

  private CetpResponse call(int uid, String tool) {
    Callers.setCallingUid(uid);
    return consumer.executeTool(AUTHORITY, tool, "{}", null);
  }

  /** The agent asks for the diary and opens the dialog, as it would with startActivityForResult. */
  private ApprovalScreen agentAsks() {
    assertEquals("AUTH_REQUIRED", call(AGENT_UID, "count_entries").errorCode());
    ApprovalScreen screen = ApprovalScreen.launchFrom(AGENT, new Intent(AUTHORIZE));
    screens.add(screen);
    return screen;
  }

  /** Renders the screen, checks accessibility, compares with golden {@code name}. */
  private static void check(ApprovalScreen screen, String name) throws IOException {
    Bitmap shot = Screenshots.render(screen.activity());
    List<String> problems = Accessibility.problems(screen.activity(), shot);
    assertTrue(name + ":\n" + String.join("\n", problems), problems.isEmpty());
    if (name != null) {
      Screenshots.assertMatchesGolden(name, shot);
    }
  }

  @Test
  public void consentDialogLight() throws IOException {
    ApprovalScreen screen = agentAsks();
    assertEquals(
        screen.text(),
        "Allow ClawSeed to read your diary entries from Diary?",
        screen.texts().get(0));
    // The window's title (what TalkBack announces, never the class name) is the question.
    assertEquals(screen.texts().get(0), screen.activity().getTitle().toString());
    check(screen, "consent-light");
  }

  @Test
  @Config(qualifiers = "+night")
  public void consentDialogNight() throws IOException {
    check(agentAsks(), "consent-night");
  }

  @Test
  @Config(qualifiers = "+ar-rEG-ldrtl")
  public void consentDialogRightToLeft() throws IOException {
    ApprovalScreen screen = agentAsks();
    assertEquals(android.view.View.LAYOUT_DIRECTION_RTL, screen.content().getLayoutDirection());
    check(screen, "consent-rtl");
  }

  @Test
  @Config(qualifiers = "w360dp-h740dp-port-xhdpi", fontScale = 2.0f)
  public void consentDialogAtTwiceTheFontSizeOnASmallPhone() throws IOException {
    check(agentAsks(), "consent-font2x-360dp");
  }

  @Test
  @Config(qualifiers = "w360dp-h740dp-port-xhdpi", fontScale = 1.3f)
  public void consentDialogAtFontScale1_3OnASmallPhoneIsAccessible() throws IOException {
    check(agentAsks(), null);
  }

  @Test
  @Config(qualifiers = "ar-rEG-ldrtl-w360dp-h740dp-port-xhdpi", fontScale = 2.0f)
  public void consentDialogRightToLeftAtTwiceTheFontSizeIsAccessible() throws IOException {
    check(agentAsks(), null);
  }

  /** An allowed app with history, one allowed earlier that never called, and a declined one. */
  private ApprovalScreen grantsWithHistory() throws IOException {
    agentAsks().tap("cetp:duration:month").tap("cetp:allow");
    for (int i = 0; i < 3; i++) {
      assertEquals("42", call(AGENT_UID, "count_entries").data());
    }
    setClock(START_MS + 2 * 3_600_000L);
    assertEquals("42", call(AGENT_UID, "count_entries").data());
    assertEquals("AUTH_REQUIRED", call(OTHER_UID, "count_entries").errorCode());
    ApprovalScreen other = ApprovalScreen.launchFrom(OTHER, new Intent(AUTHORIZE));
    screens.add(other);
    other.tap("cetp:deny");
    ApprovalScreen grants = ApprovalScreen.launch(new Intent(MANAGE));
    screens.add(grants);
    return grants;
  }

  @Test
  public void grantsScreenLight() throws IOException {
    ApprovalScreen grants = grantsWithHistory();
    String shown = grants.text();
    assertTrue(shown, grants.texts().contains("May read your diary entries"));
    assertTrue(
        shown,
        grants.texts().contains("Last used Jan 1, 2026, 2:00 AM. Calls: 4 today, 4 in the last 7 days."));
    assertTrue(shown, grants.texts().contains("Weather Widget"));
    check(grants, "grants-light");
  }

  @Test
  @Config(qualifiers = "+night")
  public void grantsScreenNight() throws IOException {
    check(grantsWithHistory(), "grants-night");
  }

  @Test
  @Config(qualifiers = "w360dp-h740dp-port-xhdpi", fontScale = 2.0f)
  public void grantsScreenAtTwiceTheFontSizeIsAccessible() throws IOException {
    check(grantsWithHistory(), null);
  }
}
