package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import android.content.Intent;
import android.content.pm.ApplicationInfo;
import android.content.pm.PackageManager;
import android.graphics.Bitmap;
import android.widget.TextView;
import dev.cetp.testkit.internal.Accessibility;
import dev.cetp.testkit.internal.ConsentScreens;
import dev.cetp.testkit.internal.Callers;
import dev.cetp.testkit.internal.CetpTransport;
import dev.cetp.testkit.ToolReply;
import dev.cetp.testkit.internal.HostBundle;
import dev.cetp.testkit.internal.Screenshots;
import dev.cetp.testkit.internal.TemplateStrings;
import dev.cetp.e2e.category.AuthProviderBundle;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TimeZone;
import org.json.JSONArray;
import org.json.JSONObject;
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
 * What the phone's owner sees, on {@code tests/auth-provider} ("Diary", two scopes, a clock the
 * test sets): the consent dialog (also for an app that already has a scope), the list of waiting
 * requests and Apps with access (also with a limited and an expired scope) rendered with native
 * graphics on a 411 × 891 dp phone, in the light and the night theme, in Arabic (right to left)
 * and Japanese, and with large fonts on a 360 dp phone, compared with golden PNGs ({@link
 * Screenshots}) and checked for accessibility ({@link Accessibility}); both screens in every
 * shipped language, checked for accessibility and for English left on them; and what the screens
 * say of each scope's access and expiry and of each request's age and lapse, read back from the
 * provider and from what its tools see. Runs in {@code bundle-auth-provider}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(AuthProviderBundle.class)
@GraphicsMode(GraphicsMode.Mode.NATIVE)
@Config(qualifiers = "w411dp-h891dp-port-xhdpi")
public class ConsentScreensTest {
  static final String PACKAGE = "dev.cetp.authfixture";
  static final String AUTHORITY = "dev.cetp.authfixture.tools";
  static final String AUTHORIZE = PACKAGE + ".CETP_AUTHORIZE";
  static final String MANAGE = PACKAGE + ".CETP_MANAGE_GRANTS";
  static final long START_MS = 1_767_225_600_000L;
  static final long MINUTE_MS = 60_000L;
  static final long HOUR_MS = 60 * MINUTE_MS;
  static final String CLOCK_FILE = "cetp-test-clock-ms";

  static final int AGENT_UID = 10_123;
  static final String AGENT = "com.clawseed.agent";
  static final byte[] AGENT_CERT = "agent-signing-cert".getBytes(StandardCharsets.UTF_8);
  static final int OTHER_UID = 10_124;
  static final String OTHER = "com.example.weatherwidget";

  private PackageManager pm;
  private CetpTransport consumer;
  private final List<ConsentScreens> screens = new ArrayList<>();
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
    consumer = new CetpTransport();
    setClock(START_MS);
    Callers.installLabelled(pm, AGENT_UID, AGENT, "ClawSeed", AGENT_CERT);
    Callers.installLabelled(pm, OTHER_UID, OTHER, "Weather Widget", "widget".getBytes(StandardCharsets.UTF_8));
  }

  @After
  public void tearDown() {
    for (ConsentScreens screen : screens) {
      screen.close();
    }
    TimeZone.setDefault(zone);
    Locale.setDefault(locale);
  }

  private static void setClock(long ms) throws IOException {
    File file = new File(RuntimeEnvironment.getApplication().getFilesDir(), CLOCK_FILE);
    Files.write(file.toPath(), Long.toString(ms).getBytes(StandardCharsets.US_ASCII));
  }

  private ToolReply call(int uid, String tool) {
    Callers.setCallingUid(uid);
    return consumer.executeTool(AUTHORITY, tool, "{}", null);
  }

  /** The agent asks for the diary and opens the dialog, as it would with startActivityForResult. */
  private ConsentScreens agentAsks() {
    assertEquals("AUTH_REQUIRED", call(AGENT_UID, "count_entries").errorCode());
    ConsentScreens screen = ConsentScreens.launchFrom(AGENT, new Intent(AUTHORIZE));
    screens.add(screen);
    return screen;
  }

  /** Renders the screen, checks accessibility, compares with golden {@code name}. */
  private static void check(ConsentScreens screen, String name) throws IOException {
    Bitmap shot = Screenshots.render(screen.activity());
    List<String> problems = Accessibility.problemsScrolledThrough(screen.activity(), shot);
    assertTrue(name + ":\n" + String.join("\n", problems), problems.isEmpty());
    if (name != null) {
      Screenshots.assertMatchesGolden(name, shot);
    }
  }

  @Test
  public void consentDialogLight() throws IOException {
    ConsentScreens screen = agentAsks();
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
    ConsentScreens screen = agentAsks();
    assertEquals(android.view.View.LAYOUT_DIRECTION_RTL, screen.content().getLayoutDirection());
    assertEquals(screen.text(), "\u0627\u0644\u0633\u0645\u0627\u062d", ((TextView) screen.find("cetp:allow")).getText().toString());
    check(screen, "consent-ar");
  }

  @Test
  @Config(qualifiers = "+ja")
  public void consentDialogInJapanese() throws IOException {
    ConsentScreens screen = agentAsks();
    assertEquals(screen.text(), "\u8a31\u53ef", ((TextView) screen.find("cetp:allow")).getText().toString());
    check(screen, "consent-ja");
  }

  /**
   * The dialog is compact: one line says what Allow gives (full access, 1 day), and the choices
   * of how long and how much, with what Limited means, show after More options (and hide again
   * after Fewer options), the summary following what the user picks.
   */
  @Test
  public void theChoicesAreBehindMoreOptions() throws IOException {
    ConsentScreens screen = agentAsks();
    assertEquals(
        screen.text(),
        Arrays.asList(
            "Allow ClawSeed to read your diary entries from Diary?",
            AGENT,
            "Certificate " + NotesAuthorizationE2ETest.fingerprint(AGENT_CERT),
            "Full access \u00b7 1 day",
            "More options",
            "Allow",
            "Don't allow",
            "Apps with access"),
        screen.texts());
    screen.tap("cetp:more");
    List<String> open = screen.texts();
    assertTrue(screen.text(), open.contains("For how long?"));
    assertTrue(screen.text(), open.contains("Fewer options"));
    assertFalse(screen.text(), open.contains("Full access \u00b7 1 day"));
    check(screen, "consent-more-light");
    screen.tap("cetp:access:limited").tap("cetp:duration:month").tap("cetp:more");
    assertTrue(screen.text(), screen.texts().contains("Limited access \u00b7 30 days"));
    assertFalse(screen.text(), screen.texts().contains("For how long?"));
    screen.tap("cetp:allow");
    assertEquals("\"limited\"", call(AGENT_UID, "entry_access").data());
  }

  /**
   * A decision in force that could not be saved yet (a directory stands where the store's file
   * is written, so every save fails) is said on the dialog and on Apps with access.
   */
  @Test
  public void aChangeNotSavedYetIsSaidOnTheDialogAndOnAppsWithAccess() throws Exception {
    agentAsks().tap("cetp:allow");
    File store = storeFile();
    assertTrue(store.delete());
    assertTrue(new File(store, "in-the-way").mkdirs());
    assertEquals("AUTH_REQUIRED", call(OTHER_UID, "count_entries").errorCode());
    ConsentScreens other = ConsentScreens.launchFrom(OTHER, new Intent(AUTHORIZE));
    screens.add(other);
    assertNull(other.text(), other.find("cetp:unsaved_changes"));
    other.tap("cetp:deny");
    assertTrue(ConsentScreens.adminState().getBoolean("unsaved_changes"));
    String notice =
        "A recent change is in force but not saved yet; this app keeps trying. If the phone"
            + " restarts first, it may be undone.";
    ConsentScreens grants = ConsentScreens.launchExplicit(grantsIntent());
    screens.add(grants);
    assertTrue(grants.text(), grants.texts().contains(notice));
    assertEquals("AUTH_REQUIRED", call(AGENT_UID, "photo_access").errorCode());
    ConsentScreens more = ConsentScreens.launchFrom(AGENT, new Intent(AUTHORIZE));
    screens.add(more);
    assertEquals(more.text(), notice, more.texts().get(0));
  }

  /** The grant store's file, wherever the provider keeps it. */
  private static File storeFile() throws IOException {
    File[] roots = {
      RuntimeEnvironment.getApplication().getNoBackupFilesDir(),
      RuntimeEnvironment.getApplication().getFilesDir()
    };
    for (File root : roots) {
      try (java.util.stream.Stream<java.nio.file.Path> files = Files.walk(root.toPath())) {
        java.util.Optional<java.nio.file.Path> found =
            files.filter(f -> f.getFileName().toString().equals("cetp-grants.json")).findFirst();
        if (found.isPresent()) {
          return found.get().toFile();
        }
      }
    }
    throw new AssertionError("no cetp-grants.json under " + Arrays.toString(roots));
  }

  /**
   * Opened by an app Android does not name: every waiting request, each app identified, none
   * chosen for the user.
   */
  @Test
  public void requestsListLight() throws IOException {
    ConsentScreens screen = twoAppsWaiting();
    assertEquals(screen.text(), "2 apps want to read from Diary", screen.texts().get(0));
    check(screen, "requests-light");
  }

  /**
   * The agent asked at the start, the widget 3 minutes later; 5 minutes after the start the list
   * is opened by an app Android does not name.
   */
  private ConsentScreens twoAppsWaiting() throws IOException {
    assertEquals("AUTH_REQUIRED", call(AGENT_UID, "count_entries").errorCode());
    setClock(START_MS + 3 * MINUTE_MS);
    assertEquals("AUTH_REQUIRED", call(OTHER_UID, "count_entries").errorCode());
    setClock(START_MS + 5 * MINUTE_MS);
    ConsentScreens screen = ConsentScreens.launchUnattributed(new Intent(AUTHORIZE));
    screens.add(screen);
    return screen;
  }

  /**
   * Each waiting request says when its app asked and when it lapses (an app that stops asking is
   * forgotten 10 minutes after its last request), updated while the list stays open; a request
   * that lapses leaves the list without the user doing anything, and is never offered.
   */
  @Test
  public void theRequestListSaysWhenEachAppAskedAndDropsARequestThatLapses() throws IOException {
    ConsentScreens screen = twoAppsWaiting();
    List<String> when = whenLines(screen);
    assertEquals(
        screen.text(),
        Arrays.asList(
            "Asked 5 minutes ago \u00b7 expires in 5 minutes",
            "Asked 2 minutes ago \u00b7 expires in 8 minutes"),
        when);
    screen.stayOpen(Duration.ofMinutes(1));
    assertEquals(
        screen.text(),
        Arrays.asList(
            "Asked 6 minutes ago \u00b7 expires in 4 minutes",
            "Asked 3 minutes ago \u00b7 expires in 7 minutes"),
        whenLines(screen));
    // The agent's request lapses 10 minutes after it asked.
    setClock(START_MS + 10 * MINUTE_MS);
    screen.stayOpen(Duration.ofMinutes(4));
    assertEquals(screen.text(), "1 app wants to read from Diary", screen.texts().get(0));
    assertFalse(screen.text(), screen.texts().contains("ClawSeed"));
    assertTrue(screen.text(), screen.texts().contains("Weather Widget"));
    assertEquals(null, screen.find("cetp:review:1"));
    assertEquals(
        screen.text(),
        Arrays.asList("Asked 7 minutes ago \u00b7 expires in 3 minutes"),
        whenLines(screen));
  }

  /** The dialog of one app's request, left open until the request lapses, offers it no longer. */
  @Test
  public void aDialogLeftOpenUntilItsRequestLapsesOffersNothing() throws IOException {
    ConsentScreens screen = agentAsks();
    assertTrue(screen.find("cetp:allow").isEnabled());
    setClock(START_MS + 10 * MINUTE_MS);
    screen.stayOpen(Duration.ofMinutes(10));
    assertEquals(null, screen.find("cetp:allow"));
    assertTrue(screen.text(), screen.texts().contains("No app is waiting for your approval right now."));
    assertEquals("AUTH_REQUIRED", call(AGENT_UID, "count_entries").errorCode());
  }

  private static List<String> whenLines(ConsentScreens screen) {
    List<String> out = new ArrayList<>();
    for (int i = 0; screen.find("cetp:request:when:" + i) != null; i++) {
      out.add(((TextView) screen.find("cetp:request:when:" + i)).getText().toString());
    }
    return out;
  }

  /** The agent asks for its diary entries, and the user allows them, limited, for 1 hour. */
  private void agentHasEntriesLimitedForAnHour() {
    assertEquals("AUTH_REQUIRED", call(AGENT_UID, "entry_access").errorCode());
    ConsentScreens first = ConsentScreens.launchFrom(AGENT, new Intent(AUTHORIZE));
    screens.add(first);
    assertNull(first.text(), first.find("cetp:held"));
    first.tap("cetp:access:limited").tap("cetp:duration:hour").tap("cetp:allow");
    assertTrue(first.isFinishing());
    assertEquals("\"limited\"", call(AGENT_UID, "entry_access").data());
  }

  /** Ten minutes later it asks for the diary's photos too, and opens the dialog. */
  private ConsentScreens agentAsksForPhotosToo() throws IOException {
    setClock(START_MS + 10 * MINUTE_MS);
    assertEquals("AUTH_REQUIRED", call(AGENT_UID, "photo_access").errorCode());
    ConsentScreens screen = ConsentScreens.launchFrom(AGENT, new Intent(AUTHORIZE));
    screens.add(screen);
    return screen;
  }

  /** 1:00 AM of the first day (UTC), as the screens write a time of day in US English. */
  static final String ONE_AM = "1:00 AM";

  /**
   * The dialog of an app that already has a scope says so before the question, with that scope's
   * access and expiry, and asks only about the new one; allowing it full, forever, leaves the
   * first limited and lapsing when it did (in the provider's state, in what the tools see, on
   * Apps with access).
   */
  @Test
  public void aLaterApprovalLeavesWhatTheAppAlreadyHadAsItWas() throws Exception {
    agentHasEntriesLimitedForAnHour();
    ConsentScreens screen = agentAsksForPhotosToo();
    List<String> texts = screen.texts();
    assertEquals(
        screen.text(),
        Arrays.asList(
            "Already allowed",
            "May read your diary entries",
            "Limited access \u00b7 until " + ONE_AM,
            "Your answer below is only for what it asks for now; this stays as it is.",
            "Allow ClawSeed to also read your diary photos from Diary?"),
        texts.subList(0, 5));
    // TalkBack announces the question.
    assertEquals(texts.get(4), screen.activity().getTitle().toString());

    screen.tap("cetp:duration:forever").tap("cetp:access:full").tap("cetp:allow");
    assertTrue(screen.isFinishing());

    // What the provider keeps: entries as first approved, photos as just approved.
    JSONArray grants = ConsentScreens.adminState().getJSONArray("grants");
    assertEquals(grants.toString(), 1, grants.length());
    JSONArray perScope = grants.getJSONObject(0).getJSONArray("per_scope");
    assertEquals(perScope.toString(), 2, perScope.length());
    JSONObject entries = perScope.getJSONObject(0);
    assertEquals("diary.read", entries.getString("scope"));
    assertEquals("limited", entries.getString("access"));
    assertEquals(START_MS + HOUR_MS, entries.getLong("expires_at_ms"));
    JSONObject photos = perScope.getJSONObject(1);
    assertEquals("diary.photos", photos.getString("scope"));
    assertEquals("full", photos.getString("access"));
    assertTrue(photos.toString(), photos.isNull("expires_at_ms"));
    // What the tools see.
    assertEquals("\"limited\"", call(AGENT_UID, "entry_access").data());
    assertEquals("\"full\"", call(AGENT_UID, "photo_access").data());

    // Apps with access: one row per scope.
    ConsentScreens list = ConsentScreens.launchExplicit(grantsIntent());
    screens.add(list);
    List<String> rows = list.texts();
    int at = rows.indexOf("May read your diary entries");
    assertTrue(list.text(), at >= 0);
    assertEquals(
        list.text(),
        Arrays.asList(
            "May read your diary entries",
            "Limited access \u00b7 until " + ONE_AM,
            "May read your diary photos",
            "Full access \u00b7 until you remove it"),
        rows.subList(at, at + 4));

    // The hour is up: the entries lapse, the photos stay.
    setClock(START_MS + HOUR_MS);
    assertEquals("AUTH_REQUIRED", call(AGENT_UID, "entry_access").errorCode());
    assertEquals("\"full\"", call(AGENT_UID, "photo_access").data());
  }

  /**
   * An app allowed only the tools that need no scope (it asked for nothing else): Apps with
   * access says so on a row of its own, and when it later asks for the diary the dialog names it
   * as already allowed.
   */
  @Test
  public void whatAnAppMayUseWithoutScopesIsARowOfItsOwn() throws Exception {
    assertEquals("AUTH_REQUIRED", call(OTHER_UID, "ping").errorCode());
    ConsentScreens first = ConsentScreens.launchFrom(OTHER, new Intent(AUTHORIZE));
    screens.add(first);
    assertEquals(first.text(), "Allow Weather Widget to use the tools of Diary?", first.texts().get(0));
    first.tap("cetp:allow");
    assertEquals("\"pong\"", call(OTHER_UID, "ping").data());

    ConsentScreens grants = ConsentScreens.launchExplicit(grantsIntent());
    screens.add(grants);
    List<String> rows = grants.texts();
    int at = rows.indexOf("May use the tools (no specific data)");
    assertTrue(grants.text(), at >= 0);
    assertEquals(grants.text(), "Full access \u00b7 for 1 more day", rows.get(at + 1));

    assertEquals("AUTH_REQUIRED", call(OTHER_UID, "count_entries").errorCode());
    ConsentScreens more = ConsentScreens.launchFrom(OTHER, new Intent(AUTHORIZE));
    screens.add(more);
    assertEquals(
        more.text(),
        Arrays.asList(
            "Already allowed",
            "May use the tools (no specific data)",
            "Full access \u00b7 for 1 more day",
            "Your answer below is only for what it asks for now; this stays as it is.",
            "Allow Weather Widget to also read your diary entries from Diary?"),
        more.texts().subList(0, 5));
  }

  @Test
  public void consentDialogOfAnAppThatAlreadyHasAScopeLight() throws IOException {
    agentHasEntriesLimitedForAnHour();
    check(agentAsksForPhotosToo(), "consent-held-light");
  }

  @Test
  @Config(qualifiers = "+ar-rEG")
  public void consentDialogOfAnAppThatAlreadyHasAScopeInArabicRightToLeft() throws IOException {
    agentHasEntriesLimitedForAnHour();
    ConsentScreens screen = agentAsksForPhotosToo();
    assertEquals(
        android.view.View.LAYOUT_DIRECTION_RTL, screen.find("cetp:held").getLayoutDirection());
    check(screen, "consent-held-ar");
  }

  @Test
  @Config(qualifiers = "w360dp-h740dp-port-xhdpi", fontScale = 2.0f)
  public void consentDialogOfAnAppThatAlreadyHasAScopeAtTwiceTheFontSizeIsAccessible()
      throws IOException {
    agentHasEntriesLimitedForAnHour();
    check(agentAsksForPhotosToo(), null);
  }

  /**
   * Apps with access with one scope expired (full, for an hour, two hours ago: shown until the
   * provider drops it) and one limited for 30 days.
   */
  @Test
  public void grantsScreenWithALimitedAndAnExpiredScopeLight() throws Exception {
    assertEquals("AUTH_REQUIRED", call(AGENT_UID, "entry_access").errorCode());
    ConsentScreens first = ConsentScreens.launchFrom(AGENT, new Intent(AUTHORIZE));
    screens.add(first);
    first.tap("cetp:duration:hour").tap("cetp:allow");
    ConsentScreens second = agentAsksForPhotosToo();
    second.tap("cetp:access:limited").tap("cetp:duration:month").tap("cetp:allow");
    setClock(START_MS + 2 * HOUR_MS);
    ConsentScreens grants = ConsentScreens.launchExplicit(grantsIntent());
    screens.add(grants);
    List<String> rows = grants.texts();
    int at = rows.indexOf("May read your diary entries");
    assertTrue(grants.text(), at >= 0);
    assertEquals(
        grants.text(),
        Arrays.asList(
            "May read your diary entries",
            "Full access \u00b7 expired Jan 1, 2026, 1:00 AM; it will ask again",
            "May read your diary photos",
            "Limited access \u00b7 for 30 more days"),
        rows.subList(at, at + 4));
    check(grants, "grants-limited-expired-light");
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
  private ConsentScreens grantsWithHistory() throws IOException {
    agentAsks().tap("cetp:duration:month").tap("cetp:allow");
    for (int i = 0; i < 3; i++) {
      assertEquals("42", call(AGENT_UID, "count_entries").data());
    }
    setClock(START_MS + 2 * 3_600_000L);
    assertEquals("42", call(AGENT_UID, "count_entries").data());
    assertEquals("AUTH_REQUIRED", call(OTHER_UID, "count_entries").errorCode());
    ConsentScreens other = ConsentScreens.launchFrom(OTHER, new Intent(AUTHORIZE));
    screens.add(other);
    other.tap("cetp:deny");
    ConsentScreens grants = ConsentScreens.launchExplicit(grantsIntent());
    screens.add(grants);
    return grants;
  }

  /** Apps with access, as the dialog's button and the app's settings open it. */
  static Intent grantsIntent() {
    return new Intent(MANAGE).setClassName(PACKAGE, ConsentScreens.GRANTS);
  }

  @Test
  public void grantsScreenLight() throws IOException {
    ConsentScreens grants = grantsWithHistory();
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
   * the English one, and the scopes are the Diary's own translations of them; only names stay as
   * they are), also on the dialog of an app
   * that already has a scope and on waiting requests listed; all pass the accessibility checks.
   */
  private void inLanguage(String allow, String manage) throws Exception {
    ConsentScreens consent = agentAsks();
    assertEquals(consent.text(), allow, ((TextView) consent.find("cetp:allow")).getText().toString());
    assertEquals(consent.text(), manage, ((TextView) consent.find("cetp:manage")).getText().toString());
    assertNoEnglish(consent);
    check(consent, null);
    consent.tap("cetp:allow");
    assertEquals("42", call(AGENT_UID, "count_entries").data());
    ConsentScreens more = agentAsksForPhotosToo();
    assertTrue(more.text(), more.find("cetp:held") != null);
    assertNoEnglish(more);
    check(more, null);
    more.tap("cetp:access:limited").tap("cetp:allow");
    assertEquals("AUTH_REQUIRED", call(OTHER_UID, "count_entries").errorCode());
    ConsentScreens waiting = ConsentScreens.launchUnattributed(new Intent(AUTHORIZE));
    screens.add(waiting);
    assertTrue(waiting.text(), waiting.find("cetp:request:when") != null);
    assertNoEnglish(waiting);
    check(waiting, null);
    ConsentScreens grants = ConsentScreens.launchExplicit(grantsIntent());
    screens.add(grants);
    assertNoEnglish(grants);
    check(grants, null);
  }

  /** No text on the screen is one of the English strings (the provider's words aside). */
  private static void assertNoEnglish(ConsentScreens screen) throws Exception {
    Set<String> english = TemplateStrings.englishTexts();
    for (String text : screen.texts()) {
      assertFalse(text + " is English on:\n" + screen.text(), english.contains(text));
      // The Diary translates its scopes: the screens ask for them in the screen's language.
      assertFalse(text + " names a scope in English on:\n" + screen.text(), text.contains("your diary"));
    }
  }
}
