package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import android.content.Intent;
import android.content.pm.ApplicationInfo;
import android.content.pm.PackageManager;
import android.graphics.Bitmap;
import android.widget.TextView;
import dev.cetp.harness.Accessibility;
import dev.cetp.harness.ApprovalScreen;
import dev.cetp.harness.Callers;
import dev.cetp.harness.CetpConsumer;
import dev.cetp.harness.CetpResponse;
import dev.cetp.harness.HostBundle;
import dev.cetp.harness.Screenshots;
import dev.cetp.harness.TemplateStrings;
import dev.cetp.harness.category.AuthProviderBundle;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
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
 * dialog, the list of waiting requests and Apps with access rendered with native graphics on a 411
 * × 891 dp phone, in the light and the night theme, in Arabic (right to left) and Japanese, and
 * with large fonts on a 360 dp phone, compared with golden PNGs ({@link Screenshots}) and checked
 * for accessibility ({@link Accessibility}); and both screens in every shipped language, checked
 * for accessibility and for English left on them. Runs in {@code bundle-auth-provider}.
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
  @Config(qualifiers = "+ar-rEG")
  public void consentDialogInArabicRightToLeft() throws IOException {
    ApprovalScreen screen = agentAsks();
    assertEquals(android.view.View.LAYOUT_DIRECTION_RTL, screen.content().getLayoutDirection());
    assertEquals(screen.text(), "\u0627\u0644\u0633\u0645\u0627\u062d", ((TextView) screen.find("cetp:allow")).getText().toString());
    check(screen, "consent-ar");
  }

  @Test
  @Config(qualifiers = "+ja")
  public void consentDialogInJapanese() throws IOException {
    ApprovalScreen screen = agentAsks();
    assertEquals(screen.text(), "\u8a31\u53ef", ((TextView) screen.find("cetp:allow")).getText().toString());
    check(screen, "consent-ja");
  }

  /**
   * Opened by an app Android does not name: every waiting request, each app identified, none
   * chosen for the user.
   */
  @Test
  public void requestsListLight() throws IOException {
    assertEquals("AUTH_REQUIRED", call(AGENT_UID, "count_entries").errorCode());
    assertEquals("AUTH_REQUIRED", call(OTHER_UID, "count_entries").errorCode());
    ApprovalScreen screen = ApprovalScreen.launchUnattributed(new Intent(AUTHORIZE));
    screens.add(screen);
    assertEquals(screen.text(), "2 apps want to read from Diary", screen.texts().get(0));
    check(screen, "requests-light");
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
  @Config(qualifiers = "ar-rEG-w360dp-h740dp-port-xhdpi", fontScale = 2.0f)
  public void consentDialogInArabicAtTwiceTheFontSizeIsAccessible() throws IOException {
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
    ApprovalScreen grants = ApprovalScreen.launchExplicit(grantsIntent());
    screens.add(grants);
    return grants;
  }

  /** Apps with access, as the dialog's button and the app's settings open it. */
  static Intent grantsIntent() {
    return new Intent(MANAGE).setClassName(PACKAGE, ApprovalScreen.GRANTS);
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
  @Config(qualifiers = "+ar-rEG")
  public void grantsScreenInArabic() throws IOException {
    check(grantsWithHistory(), "grants-ar");
  }

  @Test
  @Config(qualifiers = "+ja")
  public void grantsScreenInJapanese() throws IOException {
    check(grantsWithHistory(), "grants-ja");
  }

  @Test
  @Config(qualifiers = "w360dp-h740dp-port-xhdpi", fontScale = 2.0f)
  public void grantsScreenAtTwiceTheFontSizeIsAccessible() throws IOException {
    check(grantsWithHistory(), null);
  }

  // Every shipped language: both screens render from the translations (no English left on
  // them), and pass the accessibility checks.

  @Test
  @Config(qualifiers = "+de")
  public void inGerman() throws Exception {
    inLanguage("Zulassen", "Apps mit Zugriff");
  }

  @Test
  @Config(qualifiers = "+es")
  public void inSpanish() throws Exception {
    inLanguage("Permitir", "Aplicaciones con acceso");
  }

  @Test
  @Config(qualifiers = "+fr")
  public void inFrench() throws Exception {
    inLanguage("Autoriser", "Applis ayant acc\u00e8s");
  }

  @Test
  @Config(qualifiers = "+hi")
  public void inHindi() throws Exception {
    inLanguage(
        "\u0905\u0928\u0941\u092e\u0924\u093f \u0926\u0947\u0902",
        "\u0910\u0915\u094d\u0938\u0947\u0938 \u0935\u093e\u0932\u0947 \u0910\u092a\u094d\u0932\u093f\u0915\u0947\u0936\u0928");
  }

  @Test
  @Config(qualifiers = "+ja")
  public void inJapanese() throws Exception {
    inLanguage("\u8a31\u53ef", "\u30a2\u30af\u30bb\u30b9\u3067\u304d\u308b\u30a2\u30d7\u30ea");
  }

  @Test
  @Config(qualifiers = "+pt-rBR")
  public void inBrazilianPortuguese() throws Exception {
    inLanguage("Permitir", "Apps com acesso");
  }

  @Test
  @Config(qualifiers = "+zh-rCN")
  public void inSimplifiedChinese() throws Exception {
    inLanguage("\u5141\u8bb8", "\u6709\u6743\u8bbf\u95ee\u7684\u5e94\u7528");
  }

  @Test
  @Config(qualifiers = "+ar-rEG")
  public void inArabic() throws Exception {
    inLanguage(
        "\u0627\u0644\u0633\u0645\u0627\u062d",
        "\u0627\u0644\u062a\u0637\u0628\u064a\u0642\u0627\u062a \u0627\u0644\u062a\u064a \u0644\u062f\u064a\u0647\u0627 \u0625\u0630\u0646 \u0628\u0627\u0644\u0648\u0635\u0648\u0644");
  }

  /**
   * The consent dialog shows {@code allow} on its Allow button and {@code manage} on its way to
   * Apps with access; every text of both screens comes from the language's translations (none is
   * the English one, but the app's and the provider's own words); both pass the accessibility
   * checks.
   */
  private void inLanguage(String allow, String manage) throws Exception {
    ApprovalScreen consent = agentAsks();
    assertEquals(consent.text(), allow, ((TextView) consent.find("cetp:allow")).getText().toString());
    assertEquals(consent.text(), manage, ((TextView) consent.find("cetp:manage")).getText().toString());
    assertNoEnglish(consent);
    check(consent, null);
    consent.tap("cetp:allow");
    assertEquals("42", call(AGENT_UID, "count_entries").data());
    ApprovalScreen grants = ApprovalScreen.launchExplicit(grantsIntent());
    screens.add(grants);
    assertNoEnglish(grants);
    check(grants, null);
  }

  /** No text on the screen is one of the English strings (the provider's words aside). */
  private static void assertNoEnglish(ApprovalScreen screen) throws Exception {
    Set<String> english = TemplateStrings.englishTexts();
    for (String text : screen.texts()) {
      assertFalse(text + " is English on:\n" + screen.text(), english.contains(text));
    }
  }
}
