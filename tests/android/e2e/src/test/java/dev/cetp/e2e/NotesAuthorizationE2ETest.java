package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import android.app.Activity;
import android.content.Intent;
import android.content.pm.PackageManager;
import android.content.pm.ResolveInfo;
import dev.cetp.e2e.category.NotesBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.Approval;
import dev.cetp.testkit.AppsWithAccess;
import dev.cetp.testkit.CallForm;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.ConsentDialog;
import dev.cetp.testkit.ToolReply;
// Internal: JVM checks, a bare UID, crafted or nothing-pending launches, views by key, state.
import dev.cetp.testkit.internal.Callers;
import dev.cetp.testkit.internal.CetpTransport;
import dev.cetp.testkit.internal.ConsentScreens;
import dev.cetp.testkit.internal.TestJvm;
import java.nio.charset.StandardCharsets;
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

/**
 * User approval end to end on the notes sample: an agent's {@code AUTH_REQUIRED}, the {@code
 * authorize_intent} resolving to the template's consent dialog, the user's choices on that
 * dialog (driven through its real views), and what the agent gets afterwards. Every reply goes
 * through a Parcel (the kit does it). Runs in {@code bundle-notes}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(NotesBundle.class)
public class NotesAuthorizationE2ETest {
  static final String PACKAGE = "dev.cetp.samples.notes";
  static final String AUTHORITY = "dev.cetp.samples.notes.tools";
  static final String AUTHORIZE = PACKAGE + ".CETP_AUTHORIZE";
  static final String MANAGE = PACKAGE + ".CETP_MANAGE_GRANTS";

  static final int AGENT_UID = 10_123;
  static final String AGENT = "com.example.agent";
  static final byte[] AGENT_CERT = "agent-signing-cert".getBytes(StandardCharsets.UTF_8);
  static final int HELPER_UID = 10_124;
  static final String HELPER = "com.example.helper";
  static final byte[] HELPER_CERT = "helper-signing-cert".getBytes(StandardCharsets.UTF_8);

  private static final String SEARCH = "{\"query\":\"basil\",\"limit\":3}";

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  private Agent agent;
  private Agent helper;
  private final List<ConsentScreens> screens = new ArrayList<>();

  @Before
  public void setUp() {
    agent = cetp.agent(AGENT, "Example Agent", AGENT_UID, AGENT_CERT);
    helper = cetp.agent(HELPER, null, HELPER_UID, HELPER_CERT);
  }

  @After
  public void tearDown() {
    for (ConsentScreens screen : screens) {
      screen.close();
    }
  }

  /**
   * The consent dialog as {@code caller} opens it with {@code intent}, whatever is pending and
   * whatever the intent carries; its views are read and tapped by key.
   */
  private ConsentScreens openAs(Agent caller, Intent intent) {
    ConsentScreens screen = ConsentScreens.launchFrom(caller.packageName(), intent);
    screens.add(screen);
    return screen;
  }

  private List<ResolveInfo> resolve(String action) {
    return cetp.context()
        .getPackageManager()
        .queryIntentActivities(new Intent(action), PackageManager.MATCH_DEFAULT_ONLY);
  }

  private static ToolReply search(Agent caller) {
    return caller.call("search_notes", SEARCH);
  }

  private static void assertCode(ToolReply r, String code) {
    assertEquals(r.toString(), "error", r.status());
    assertEquals(r.toString(), code, r.errorCode());
  }

  /** The agent's first call: AUTH_REQUIRED, and the dialog its intent opens. */
  private ConsentDialog askAndOpen() {
    ToolReply first = search(agent);
    assertCode(first, "AUTH_REQUIRED");
    return agent.openConsentDialog(first);
  }

  // ------------------------------------------------------------------------------------------

  @Test
  public void jvmIsConfigured() {
    TestJvm.requireConfigured();
  }

  @Test
  public void discoveryAnswersUnknownCallersByDefault() throws Exception {
    Callers.setCallingUid(10_999); // an app the provider has never seen, with no package at all
    CetpTransport unknown = new CetpTransport();
    ToolReply tools = unknown.listTools(AUTHORITY);
    assertTrue(tools.toString(), tools.isSuccess());
    assertEquals(5, tools.tools().length()); // search_notes, get_note, list_tags, notes_between, find_text
    assertTrue(unknown.getProviderInfo(AUTHORITY).isSuccess());
    assertTrue(agent.listTools().isSuccess());
  }

  @Test
  public void unknownCallerGetsAuthRequiredWithHintAndAnIntentThatOpensTheScreen() {
    for (CallForm form : CallForm.values()) {
      ToolReply r = agent.call(form, "search_notes", SEARCH);
      assertCode(r, "AUTH_REQUIRED");
      assertNull(r.data());
      assertTrue(r.errorMessage(), r.errorMessage().contains(AGENT));
      assertNotNull(r.toString(), r.resolutionHint());
      assertTrue(r.resolutionHint(), r.resolutionHint().contains("Notes"));
      assertTrue(
          r.resolutionHint(), r.resolutionHint().contains("your notes: titles, dates and text"));
      assertEquals(AUTHORIZE, r.authorizeIntent());
    }
    // The agent launches the action as an implicit intent: exactly the template's dialog.
    List<ResolveInfo> found = resolve(AUTHORIZE);
    assertEquals(found.toString(), 1, found.size());
    assertEquals(ConsentScreens.ACTIVITY, found.get(0).activityInfo.name);
    assertEquals(PACKAGE, found.get(0).activityInfo.packageName);
    assertTrue(found.get(0).activityInfo.exported);
    // Apps with access is the app's own: not exported, so no other app can open it.
    List<ResolveInfo> manage = resolve(MANAGE);
    assertEquals(manage.toString(), 1, manage.size());
    assertEquals(ConsentScreens.GRANTS, manage.get(0).activityInfo.name);
    assertFalse(manage.get(0).activityInfo.exported);
  }

  @Test
  public void theScreenShowsTheRequestInWordsAndAllowGrantsIt() throws Exception {
    ConsentDialog dialog = askAndOpen();
    // What Allow gives, in one line; the choices behind More options.
    assertTrue(dialog.text(), dialog.texts().contains("Full access \u00b7 1 day"));
    dialog.moreOptions();
    List<String> texts = dialog.texts();
    String shown = dialog.text();
    assertEquals(
        shown,
        "Allow Example Agent to read your notes: titles, dates and text from Notes?",
        texts.get(0));
    String fingerprint = fingerprint(AGENT_CERT);
    assertEquals(shown, AGENT, texts.get(1));
    assertEquals(shown, "Certificate " + fingerprint, texts.get(2));
    assertFalse("only the scope the call needed: " + shown, shown.contains("tag names"));
    for (String choice :
        new String[] {
          "1 hour", "1 day", "30 days", "Until I remove access", "Everything it asks for",
          "Limited", "Allow", "Don't allow", "Apps with access"
        }) {
      assertTrue(choice + " in " + shown, texts.contains(choice));
    }
    assertTrue(
        shown,
        shown.contains(
            "Limited: Notes shares an outline, such as titles and dates, and leaves out the most"
                + " private details"));

    dialog.allow();
    assertTrue("the dialog returns to the agent", dialog.isFinishing());
    assertEquals(Activity.RESULT_OK, dialog.resultCode());

    ToolReply again = search(agent);
    assertTrue(again.toString(), again.isSuccess());
    JSONArray hits = new JSONArray(again.data());
    assertTrue(again.data(), hits.length() > 0);
    assertTrue(again.data(), hits.getJSONObject(0).getString("snippet").contains("**"));
    // Only notes.read was asked for and allowed: tags.read still needs the user.
    assertCode(agent.call("list_tags", "{}"), "AUTH_REQUIRED");
    // Another app is not covered by the agent's approval.
    assertCode(search(helper), "AUTH_REQUIRED");
  }

  @Test
  public void limitedAccessGetsNoBodiesOrSnippets() throws Exception {
    ConsentDialog dialog = askAndOpen();
    dialog.allow(ConsentDialog.Duration.ONE_DAY, Approval.Access.LIMITED);
    assertTrue(dialog.isFinishing());

    ToolReply note = agent.call("get_note", "{\"id\":7}");
    assertTrue(note.toString(), note.isSuccess());
    JSONObject limited = note.jsonObject();
    assertEquals(7, limited.getInt("id"));
    assertFalse(limited.getString("title").isEmpty());
    assertFalse(limited.toString(), limited.has("body"));
    // A limited search looks at titles and tags only (bodies must not decide what it finds).
    JSONArray hits = new JSONArray(agent.call("search_notes", "{\"query\":\"Lisbon\"}").data());
    assertTrue(hits.length() > 0);
    for (int i = 0; i < hits.length(); i++) {
      assertFalse(hits.toString(), hits.getJSONObject(i).has("snippet"));
      assertTrue(hits.toString(), hits.getJSONObject(i).getString("title").contains("Lisbon"));
    }

    // The same note for a caller the user allowed fully has its body: the difference is the
    // access level chosen on the dialog.
    ToolReply helperFirst = search(helper);
    assertCode(helperFirst, "AUTH_REQUIRED");
    helper.openConsentDialog(helperFirst).allow();
    JSONObject full = helper.call("get_note", "{\"id\":7}").jsonObject();
    assertFalse(full.getString("body").isEmpty());
    assertEquals(full.getString("title"), limited.getString("title"));
  }

  @Test
  public void denyGivesPermissionDeniedUntilAllowedAgain() {
    ConsentDialog dialog = askAndOpen();
    dialog.deny();
    assertTrue(dialog.isFinishing());
    assertEquals(Activity.RESULT_CANCELED, dialog.resultCode());

    ToolReply denied = search(agent);
    assertCode(denied, "PERMISSION_DENIED");
    assertTrue(denied.errorMessage(), denied.errorMessage().contains("do not retry"));
    // A denial records no new request: the dialog has nothing to ask.
    ConsentScreens empty = openAs(agent, new Intent(AUTHORIZE));
    assertTrue(
        empty.text(), empty.texts().contains("No app is waiting for your approval right now."));
    assertNull(empty.find("cetp:allow"));

    AppsWithAccess grants = cetp.openAppsWithAccess();
    String shown = grants.text();
    assertEquals(shown, "Apps and your Notes data", grants.texts().get(0));
    assertTrue(shown, grants.texts().contains("No app may read your data."));
    assertTrue(shown, grants.texts().contains("Example Agent"));
    assertTrue(shown, shown.contains("Declined "));
    assertTrue(shown, grants.texts().contains("Let it ask again"));
    grants.letAskAgain(0);
    assertFalse("Apps with access stays open", grants.activity().isFinishing());
    assertTrue(grants.text(), grants.texts().contains("You have not declined any app."));

    // Allowed to ask again: AUTH_REQUIRED and a fresh request the user can allow.
    agent.openConsentDialog(search(agent)).allow();
    assertTrue(search(agent).isSuccess());
  }

  @Test
  public void revokeOnTheGrantsScreenEndsAccess() throws Exception {
    ConsentDialog dialog = askAndOpen();
    dialog.allow(ConsentDialog.Duration.THIRTY_DAYS, Approval.Access.FULL);
    assertTrue(search(agent).isSuccess());

    // The button on the consent dialog opens Apps with access with the manage action.
    ConsentScreens again = openAs(agent, new Intent(AUTHORIZE));
    again.tap("cetp:manage");
    Intent next = again.nextStartedActivity();
    assertNotNull(next);
    assertTrue(next.getAction(), next.getAction().endsWith(".CETP_MANAGE_GRANTS"));
    assertEquals(ConsentScreens.GRANTS, next.getComponent().getClassName());
    ConsentScreens grants = ConsentScreens.launchExplicit(next);
    screens.add(grants);
    List<String> texts = grants.texts();
    String shown = grants.text();
    assertTrue(shown, texts.contains("Example Agent"));
    assertTrue(shown, texts.contains(AGENT));
    assertTrue(shown, texts.contains("Certificate " + fingerprint(AGENT_CERT)));
    assertTrue(shown, texts.contains("May read your notes: titles, dates and text"));
    // Allowed for 30 days a moment ago.
    assertTrue(shown, texts.contains("Full access \u00b7 for 30 more days"));
    assertTrue(
        shown,
        texts.stream().anyMatch(t -> t.endsWith(". Calls: 1 today, 1 in the last 7 days.")));
    assertTrue(shown, texts.contains("Remove access"));
    assertTrue(shown, texts.contains("You have not declined any app."));

    grants.tap("cetp:revoke:0");
    assertTrue(grants.text(), grants.texts().contains("No app may read your data."));
    ToolReply revoked = search(agent);
    assertCode(revoked, "AUTH_REQUIRED");
    assertEquals(AUTHORIZE, revoked.authorizeIntent());
  }

  @Test
  public void anotherCertificateUnderTheSameNameGetsNothing() {
    askAndOpen().allow();
    assertTrue(search(agent).isSuccess());

    // An impostor installed under the agent's package name (the real one gone), other key.
    int impostorUid = 10_200;
    byte[] impostorCert = "impostor-cert".getBytes(StandardCharsets.UTF_8);
    Agent impostor = cetp.agent(AGENT, "Example Agent", impostorUid, impostorCert);
    ToolReply r = search(impostor);
    assertCode(r, "AUTH_REQUIRED");
    // The user is shown the impostor's certificate, not the approved one.
    ConsentDialog dialog = impostor.openConsentDialog(r);
    assertTrue(dialog.text(), dialog.texts().contains("Certificate " + fingerprint(impostorCert)));
    assertFalse(dialog.text(), dialog.text().contains(fingerprint(AGENT_CERT)));
  }

  @Test
  public void aSharedUidIsOneRequestNamingEveryPackage() {
    int suiteUid = 10_300;
    byte[] suiteCert = "suite-cert".getBytes(StandardCharsets.UTF_8);
    Agent suite = cetp.agent("com.example.suite.agent", "Suite Agent", suiteUid, suiteCert);
    cetp.agent("com.example.suite.sync", "Suite Sync", suiteUid, suiteCert);
    ToolReply first = search(suite);
    assertCode(first, "AUTH_REQUIRED");
    ConsentScreens screen = openAs(suite, new Intent(first.authorizeIntent()));
    List<String> texts = screen.texts();
    String shown = screen.text();
    assertEquals(
        shown,
        "Allow Suite Agent, Suite Sync to read your notes: titles, dates and text from Notes?",
        texts.get(0));
    assertEquals(shown, "com.example.suite.agent", texts.get(1));
    assertEquals(shown, "Certificate " + fingerprint(suiteCert), texts.get(2));
    assertEquals(shown, "com.example.suite.sync", texts.get(3));
    assertEquals(shown, "Certificate " + fingerprint(suiteCert), texts.get(4));
    assertTrue(
        shown,
        texts.contains(
            "These apps share one identity on this phone; your answer applies to all of them."));
    assertNull("one request, one package list", screen.find("cetp:package:2"));
    screen.tap("cetp:allow");
    assertTrue(search(suite).isSuccess());

    AppsWithAccess grants = cetp.openAppsWithAccess();
    assertTrue(grants.text(), grants.texts().contains("Suite Agent"));
    assertTrue(grants.text(), grants.texts().contains("Suite Sync"));
  }

  @Test
  public void craftedExtrasWithoutAPendingRequestGrantNothing() {
    Intent crafted = new Intent(AUTHORIZE);
    putEverything(crafted, "1-1", HELPER, helper.certificateSha256());
    ConsentScreens screen = openAs(agent, crafted);
    assertTrue(
        screen.text(), screen.texts().contains("No app is waiting for your approval right now."));
    assertFalse(screen.text(), screen.text().contains(HELPER));
    assertNull(screen.find("cetp:allow"));
    assertCode(search(helper), "AUTH_REQUIRED");
    assertTrue(cetp.openAppsWithAccess().texts().contains("No app may read your data."));
  }

  /**
   * A malicious app with a pending request of its own launches the dialog with extras naming
   * another app's pending request (id, package, certificate), every scope, full access and no
   * expiry. The user sees and allows only what the provider recorded, with the choices on screen:
   * the other app stays unapproved, the malicious one gets exactly the scope it asked for, limited.
   */
  @Test
  public void craftedExtrasCannotRedirectOrWidenAnApproval() throws Exception {
    // The agent asks first and waits; then the malicious app asks.
    assertCode(search(agent), "AUTH_REQUIRED");
    String evilPackage = "com.example.evil";
    byte[] evilCert = "evil-cert".getBytes(StandardCharsets.UTF_8);
    Agent evil = cetp.agent(evilPackage, "Totally Legit", 10_666, evilCert);
    assertCode(search(evil), "AUTH_REQUIRED");

    JSONArray pending = ConsentScreens.adminState().getJSONArray("pending");
    assertEquals(pending.toString(), 2, pending.length());
    String agentId = pending.getJSONObject(0).getString("id");
    assertEquals(
        AGENT,
        pending.getJSONObject(0).getJSONArray("packages").getJSONObject(0).getString("name"));

    Intent crafted = new Intent(AUTHORIZE);
    putEverything(crafted, agentId, AGENT, agent.certificateSha256());
    // The malicious app opens the dialog: it shows the malicious app's own request, by its name.
    ConsentScreens screen = openAs(evil, crafted);
    assertEquals(
        screen.text(),
        "Allow Totally Legit to read your notes: titles, dates and text from Notes?",
        screen.texts().get(0));
    assertEquals(screen.text(), evilPackage, screen.texts().get(1));
    screen.tap("cetp:access:limited").tap("cetp:duration:hour").tap("cetp:allow");
    assertTrue(screen.isFinishing());

    // The agent named in the extras got nothing; its request still waits, unchanged.
    assertCode(search(agent), "AUTH_REQUIRED");
    JSONArray left = ConsentScreens.adminState().getJSONArray("pending");
    assertEquals(left.toString(), 1, left.length());
    assertEquals(agentId, left.getJSONObject(0).getString("id"));

    // The malicious app got what the user chose on screen: notes.read only, limited.
    ToolReply evilNote = evil.call("get_note", "{\"id\":7}");
    assertTrue(evilNote.toString(), evilNote.isSuccess());
    assertFalse(evilNote.data(), evilNote.jsonObject().has("body"));
    assertCode(evil.call("list_tags", "{}"), "AUTH_REQUIRED");
    JSONArray grants = ConsentScreens.adminState().getJSONArray("grants");
    assertEquals(grants.toString(), 1, grants.length());
    JSONObject grant = grants.getJSONObject(0);
    assertEquals(evilPackage, grant.getString("package"));
    assertEquals("limited", grant.getString("access"));
    assertEquals("[\"notes.read\"]", grant.getJSONArray("scopes").toString());
    assertEquals(3_600_000L, grant.getLong("expires_at_ms") - grant.getLong("granted_at_ms"));
  }

  /** Every extra an attacker might hope the screen reads, in several spellings and types. */
  private static void putEverything(Intent intent, String id, String pkg, String cert) {
    for (String key : new String[] {"id", "request_id", "pending_id", "dev.cetp.ID"}) {
      intent.putExtra(key, id);
    }
    for (String key : new String[] {"package", "package_name", "caller", "dev.cetp.PACKAGE"}) {
      intent.putExtra(key, pkg);
    }
    intent.putExtra("certificate_sha256", cert);
    intent.putExtra("scopes", new String[] {"notes.read", "tags.read"});
    intent.putExtra("scope", "tags.read");
    intent.putExtra("access", "full");
    intent.putExtra("duration_secs", 0L);
    intent.putExtra("op", "approve");
    intent.putExtra("json", "{\"op\":\"approve\",\"id\":\"" + id + "\"}");
    intent.putExtra("approve", true);
  }

  /** The screen's short fingerprint: the first 8 bytes, upper-case hex, colons, an ellipsis. */
  static String fingerprint(byte[] cert) {
    String hex = Callers.sha256Hex(cert).toUpperCase(java.util.Locale.ROOT);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < 16; i += 2) {
      if (i > 0) {
        out.append(':');
      }
      out.append(hex, i, i + 2);
    }
    return out.append('\u2026').toString();
  }
}
