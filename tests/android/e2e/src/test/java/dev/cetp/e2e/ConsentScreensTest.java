package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import android.app.Activity;
import android.content.Intent;
import android.content.pm.ApplicationInfo;
import android.graphics.Bitmap;
import android.widget.TextView;
import dev.cetp.e2e.category.AuthProviderBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.Approval;
import dev.cetp.testkit.AppsWithAccess;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.ConsentDialog;
import dev.cetp.testkit.ToolReply;
// Internal: pixels, accessibility, English strings, views by key, the request list, admin state.
import dev.cetp.testkit.internal.Accessibility;
import dev.cetp.testkit.internal.ConsentScreens;
import dev.cetp.testkit.internal.Screenshots;
import dev.cetp.testkit.internal.TemplateStrings;
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
import org.junit.Rule;
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
  static final String AUTHORIZE = PACKAGE + ".CETP_AUTHORIZE";
  static final long START_MS = 1_767_225_600_000L;
  static final long MINUTE_MS = 60_000L;
  static final long HOUR_MS = 60 * MINUTE_MS;
  static final String CLOCK_FILE = "cetp-test-clock-ms";

  static final int AGENT_UID = 10_123;
  static final String AGENT = "com.clawseed.agent";
  static final byte[] AGENT_CERT = "agent-signing-cert".getBytes(StandardCharsets.UTF_8);
  static final int OTHER_UID = 10_124;
  static final String OTHER = "com.example.weatherwidget";

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  private Agent agent;
  private Agent other;
  /** What the kit's API does not open (the request list): closed after each test. */
  private final ConsentScreensOpened screens = new ConsentScreensOpened();
  private TimeZone zone;
  private Locale locale;

  @Before
  public void setUp() throws IOException {
    zone = TimeZone.getDefault();
    locale = Locale.getDefault();
    TimeZone.setDefault(TimeZone.getTimeZone("UTC"));
    Locale.setDefault(Locale.US);
    // As an app with android:supportsRtl="true" (the template's README asks for it).
    cetp.context().getApplicationInfo().flags |= ApplicationInfo.FLAG_SUPPORTS_RTL;
    setClock(START_MS);
    agent = cetp.agent(AGENT, "ClawSeed", AGENT_UID, AGENT_CERT);
    other =
        cetp.agent(OTHER, "Weather Widget", OTHER_UID, "widget".getBytes(StandardCharsets.UTF_8));
  }

  @After
  public void tearDown() {
    screens.closeAll();
    TimeZone.setDefault(zone);
    Locale.setDefault(locale);
  }

  private static void setClock(long ms) throws IOException {
    File file = new File(RuntimeEnvironment.getApplication().getFilesDir(), CLOCK_FILE);
    Files.write(file.toPath(), Long.toString(ms).getBytes(StandardCharsets.US_ASCII));
  }

  /** {@code tool} called with no arguments. */
  private static ToolReply call(Agent caller, String tool) {
    return caller.call(tool, "{}");
  }

  /** {@code caller} asks for {@code tool}, is refused, and opens the dialog it is sent to. */
  private static ConsentDialog asks(Agent caller, String tool) {
    return ConsentScreensOpened.asks(caller, tool);
  }

  /** The agent asks for the diary and opens the dialog, as it would with startActivityForResult. */
  private ConsentDialog agentAsks() {
    return asks(agent, "count_entries");
  }

  /** The text of the view named {@code key} on {@code dialog}. */
  private static String text(ConsentDialog dialog, String key) {
    return ((TextView) ConsentScreens.of(dialog).find(key)).getText().toString();
  }

  /** Renders the screen, checks accessibility, compares with golden {@code name}. */
  private static void check(Activity screen, String name) throws IOException {
    Bitmap shot = Screenshots.render(screen);
    List<String> problems = Accessibility.problemsScrolledThrough(screen, shot);
    assertTrue(name + ":\n" + String.join("\n", problems), problems.isEmpty());
    if (name != null) {
      Screenshots.assertMatchesGolden(name, shot);
    }
  }

  @Test
  public void consentDialogLight() throws IOException {
    ConsentDialog dialog = agentAsks();
    assertEquals(
        dialog.text(), "Allow ClawSeed to read your diary entries from Diary?", dialog.question());
    // The window's title (what TalkBack announces, never the class name) is the question.
    assertEquals(dialog.question(), dialog.activity().getTitle().toString());
    check(dialog.activity(), "consent-light");
  }

  @Test
  @Config(qualifiers = "+night")
  public void consentDialogNight() throws IOException {
    check(agentAsks().activity(), "consent-night");
  }

  @Test
  @Config(qualifiers = "+ar-rEG")
  public void consentDialogInArabicRightToLeft() throws IOException {
    ConsentDialog dialog = agentAsks();
    assertEquals(
        android.view.View.LAYOUT_DIRECTION_RTL,
        ConsentScreens.of(dialog).content().getLayoutDirection());
    assertEquals(
        dialog.text(), "\u0627\u0644\u0633\u0645\u0627\u062d", text(dialog, "cetp:allow"));
    check(dialog.activity(), "consent-ar");
  }

  @Test
  @Config(qualifiers = "+ja")
  public void consentDialogInJapanese() throws IOException {
    ConsentDialog dialog = agentAsks();
    assertEquals(dialog.text(), "\u8a31\u53ef", text(dialog, "cetp:allow"));
    check(dialog.activity(), "consent-ja");
  }

  /**
   * The dialog is compact: one line says what Allow gives (full access, 1 day), and the choices
   * of how long and how much, with what Limited means, show after More options (and hide again
   * after Fewer options), the summary following what the user picks.
   */
  @Test
  public void theChoicesAreBehindMoreOptions() throws IOException {
    ConsentDialog dialog = agentAsks();
    ConsentScreens screen = ConsentScreens.of(dialog);
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
    check(dialog.activity(), "consent-more-light");
    screen.tap("cetp:access:limited").tap("cetp:duration:month").tap("cetp:more");
    assertTrue(screen.text(), screen.texts().contains("Limited access \u00b7 30 days"));
    assertFalse(screen.text(), screen.texts().contains("For how long?"));
    dialog.allow();
    assertEquals("\"limited\"", call(agent, "entry_access").data());
  }

  /**
   * A decision in force that could not be saved yet (a directory stands where the store's file
   * is written, so every save fails) is said on the dialog and on Apps with access.
   */
  @Test
  public void aChangeNotSavedYetIsSaidOnTheDialogAndOnAppsWithAccess() throws Exception {
    agentAsks().allow();
    File store = storeFile();
    assertTrue(store.delete());
    assertTrue(new File(store, "in-the-way").mkdirs());
    ConsentDialog denied = asks(other, "count_entries");
    assertNull(denied.text(), ConsentScreens.of(denied).find("cetp:unsaved_changes"));
    denied.deny();
    assertTrue(ConsentScreens.adminState().getBoolean("unsaved_changes"));
    String notice =
        "A recent change is in force but not saved yet; this app keeps trying. If the phone"
            + " restarts first, it may be undone.";
    AppsWithAccess grants = cetp.openAppsWithAccess();
    assertTrue(grants.text(), grants.texts().contains(notice));
    ConsentDialog more = asks(agent, "photo_access");
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
    check(screen.activity(), "requests-light");
  }

  /**
   * The agent asked at the start, the widget 3 minutes later; 5 minutes after the start the list
   * is opened by an app Android does not name.
   */
  private ConsentScreens twoAppsWaiting() throws IOException {
    assertEquals("AUTH_REQUIRED", call(agent, "count_entries").errorCode());
    setClock(START_MS + 3 * MINUTE_MS);
    assertEquals("AUTH_REQUIRED", call(other, "count_entries").errorCode());
    setClock(START_MS + 5 * MINUTE_MS);
    return screens.keep(ConsentScreens.launchUnattributed(new Intent(AUTHORIZE)));
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
    ConsentDialog dialog = agentAsks();
    ConsentScreens screen = ConsentScreens.of(dialog);
    assertTrue(screen.find("cetp:allow").isEnabled());
    setClock(START_MS + 10 * MINUTE_MS);
    screen.stayOpen(Duration.ofMinutes(10));
    assertEquals(null, screen.find("cetp:allow"));
    assertTrue(
        dialog.text(),
        dialog.texts().contains("No app is waiting for your approval right now."));
    assertEquals("AUTH_REQUIRED", call(agent, "count_entries").errorCode());
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
    ConsentDialog first = asks(agent, "entry_access");
    assertNull(first.text(), ConsentScreens.of(first).find("cetp:held"));
    first.allow(ConsentDialog.Duration.ONE_HOUR, Approval.Access.LIMITED);
    assertTrue(first.isFinishing());
    assertEquals("\"limited\"", call(agent, "entry_access").data());
  }

  /** Ten minutes later it asks for the diary's photos too, and opens the dialog. */
  private ConsentDialog agentAsksForPhotosToo() throws IOException {
    setClock(START_MS + 10 * MINUTE_MS);
    return asks(agent, "photo_access");
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
    ConsentDialog dialog = agentAsksForPhotosToo();
    List<String> texts = dialog.texts();
    assertEquals(
        dialog.text(),
        Arrays.asList(
            "Already allowed",
            "May read your diary entries",
            "Limited access \u00b7 until " + ONE_AM,
            "Your answer below is only for what it asks for now; this stays as it is.",
            "Allow ClawSeed to also read your diary photos from Diary?"),
        texts.subList(0, 5));
    // TalkBack announces the question.
    assertEquals(texts.get(4), dialog.activity().getTitle().toString());

    dialog.allow(ConsentDialog.Duration.UNTIL_REVOKED, Approval.Access.FULL);
    assertTrue(dialog.isFinishing());

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
    assertEquals("\"limited\"", call(agent, "entry_access").data());
    assertEquals("\"full\"", call(agent, "photo_access").data());

    // Apps with access: one row per scope.
    AppsWithAccess list = cetp.openAppsWithAccess();
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
    assertEquals("AUTH_REQUIRED", call(agent, "entry_access").errorCode());
    assertEquals("\"full\"", call(agent, "photo_access").data());
  }

  /**
   * An app allowed only the tools that need no scope (it asked for nothing else): Apps with
   * access says so on a row of its own, and when it later asks for the diary the dialog names it
   * as already allowed.
   */
  @Test
  public void whatAnAppMayUseWithoutScopesIsARowOfItsOwn() throws Exception {
    ConsentDialog first = asks(other, "ping");
    assertEquals(first.text(), "Allow Weather Widget to use the tools of Diary?", first.question());
    first.allow();
    assertEquals("\"pong\"", call(other, "ping").data());

    AppsWithAccess grants = cetp.openAppsWithAccess();
    List<String> rows = grants.texts();
    int at = rows.indexOf("May use the tools (no specific data)");
    assertTrue(grants.text(), at >= 0);
    assertEquals(grants.text(), "Full access \u00b7 for 1 more day", rows.get(at + 1));

    ConsentDialog more = asks(other, "count_entries");
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
    check(agentAsksForPhotosToo().activity(), "consent-held-light");
  }

  @Test
  @Config(qualifiers = "+ar-rEG")
  public void consentDialogOfAnAppThatAlreadyHasAScopeInArabicRightToLeft() throws IOException {
    agentHasEntriesLimitedForAnHour();
    ConsentDialog dialog = agentAsksForPhotosToo();
    assertEquals(
        android.view.View.LAYOUT_DIRECTION_RTL,
        ConsentScreens.of(dialog).find("cetp:held").getLayoutDirection());
    check(dialog.activity(), "consent-held-ar");
  }

  @Test
  @Config(qualifiers = "w360dp-h740dp-port-xhdpi", fontScale = 2.0f)
  public void consentDialogOfAnAppThatAlreadyHasAScopeAtTwiceTheFontSizeIsAccessible()
      throws IOException {
    agentHasEntriesLimitedForAnHour();
    check(agentAsksForPhotosToo().activity(), null);
  }

  /**
   * Apps with access with one scope expired (full, for an hour, two hours ago: shown until the
   * provider drops it) and one limited for 30 days.
   */
  @Test
  public void grantsScreenWithALimitedAndAnExpiredScopeLight() throws Exception {
    asks(agent, "entry_access").allow(ConsentDialog.Duration.ONE_HOUR, Approval.Access.FULL);
    agentAsksForPhotosToo()
        .allow(ConsentDialog.Duration.THIRTY_DAYS, Approval.Access.LIMITED);
    setClock(START_MS + 2 * HOUR_MS);
    AppsWithAccess grants = cetp.openAppsWithAccess();
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
    check(grants.activity(), "grants-limited-expired-light");
  }

  @Test
  @Config(qualifiers = "w360dp-h740dp-port-xhdpi", fontScale = 2.0f)
  public void consentDialogAtTwiceTheFontSizeOnASmallPhone() throws IOException {
    check(agentAsks().activity(), "consent-font2x-360dp");
  }

  @Test
  @Config(qualifiers = "w360dp-h740dp-port-xhdpi", fontScale = 1.3f)
  public void consentDialogAtFontScale1_3OnASmallPhoneIsAccessible() throws IOException {
    check(agentAsks().activity(), null);
  }

  @Test
  @Config(qualifiers = "ar-rEG-w360dp-h740dp-port-xhdpi", fontScale = 2.0f)
  public void consentDialogInArabicAtTwiceTheFontSizeIsAccessible() throws IOException {
    check(agentAsks().activity(), null);
  }

  /** An allowed app with history, one allowed earlier that never called, and a declined one. */
  private AppsWithAccess grantsWithHistory() throws IOException {
    agentAsks().allow(ConsentDialog.Duration.THIRTY_DAYS, Approval.Access.FULL);
    for (int i = 0; i < 3; i++) {
      assertEquals("42", call(agent, "count_entries").data());
    }
    setClock(START_MS + 2 * 3_600_000L);
    assertEquals("42", call(agent, "count_entries").data());
    asks(other, "count_entries").deny();
    return cetp.openAppsWithAccess();
  }

  @Test
  public void grantsScreenLight() throws IOException {
    AppsWithAccess grants = grantsWithHistory();
    String shown = grants.text();
    assertTrue(shown, grants.texts().contains("May read your diary entries"));
    assertTrue(
        shown,
        grants.texts().contains("Last used Jan 1, 2026, 2:00 AM. Calls: 4 today, 4 in the last 7 days."));
    assertTrue(shown, grants.texts().contains("Weather Widget"));
    check(grants.activity(), "grants-light");
  }

  @Test
  @Config(qualifiers = "+night")
  public void grantsScreenNight() throws IOException {
    check(grantsWithHistory().activity(), "grants-night");
  }

  @Test
  @Config(qualifiers = "+ar-rEG")
  public void grantsScreenInArabic() throws IOException {
    check(grantsWithHistory().activity(), "grants-ar");
  }

  @Test
  @Config(qualifiers = "+ja")
  public void grantsScreenInJapanese() throws IOException {
    check(grantsWithHistory().activity(), "grants-ja");
  }

  @Test
  @Config(qualifiers = "w360dp-h740dp-port-xhdpi", fontScale = 2.0f)
  public void grantsScreenAtTwiceTheFontSizeIsAccessible() throws IOException {
    check(grantsWithHistory().activity(), null);
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
    ConsentDialog consent = agentAsks();
    assertEquals(consent.text(), allow, text(consent, "cetp:allow"));
    assertEquals(consent.text(), manage, text(consent, "cetp:manage"));
    assertNoEnglish(consent.texts());
    check(consent.activity(), null);
    consent.allow();
    assertEquals("42", call(agent, "count_entries").data());
    ConsentDialog more = agentAsksForPhotosToo();
    assertTrue(more.text(), ConsentScreens.of(more).find("cetp:held") != null);
    assertNoEnglish(more.texts());
    check(more.activity(), null);
    more.allow(ConsentDialog.Duration.ONE_DAY, Approval.Access.LIMITED);
    assertEquals("AUTH_REQUIRED", call(other, "count_entries").errorCode());
    ConsentScreens waiting = screens.keep(ConsentScreens.launchUnattributed(new Intent(AUTHORIZE)));
    assertTrue(waiting.text(), waiting.find("cetp:request:when") != null);
    assertNoEnglish(waiting.texts());
    check(waiting.activity(), null);
    AppsWithAccess grants = cetp.openAppsWithAccess();
    assertNoEnglish(grants.texts());
    check(grants.activity(), null);
  }

  /** No text of a screen is one of the English strings (the provider's words aside). */
  private static void assertNoEnglish(List<String> texts) throws Exception {
    Set<String> english = TemplateStrings.englishTexts();
    String shown = String.join("\n", texts);
    for (String text : texts) {
      assertFalse(text + " is English on:\n" + shown, english.contains(text));
      // The Diary translates its scopes: the screens ask for them in the screen's language.
      assertFalse(text + " names a scope in English on:\n" + shown, text.contains("your diary"));
    }
  }
}
