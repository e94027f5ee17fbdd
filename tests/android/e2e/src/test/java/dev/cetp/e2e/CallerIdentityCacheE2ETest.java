package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertTrue;
import static org.robolectric.Shadows.shadowOf;

import android.content.Intent;
import android.content.pm.PackageManager;
import android.net.Uri;
import dev.cetp.e2e.category.FixtureProviderBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.CetpTestRule;
// Internal: PackageManager answers counted and altered; calls from UIDs that no agent holds.
import dev.cetp.testkit.internal.Callers;
import dev.cetp.testkit.internal.CetpTransport;
import dev.cetp.testkit.internal.CountingPackageManager;
import dev.cetp.testkit.internal.HostBundle;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;
import org.robolectric.shadows.ShadowSystemClock;

/**
 * The template's caller-identity cache ({@code dev.cetp.CallerIdentity}, {@code
 * CallerIdentityCache}) seen through the Rust fixture's {@code whoami} tool, which answers the
 * UID, packages and certificate digests the bridge handed to Rust. Agents call it as an app's
 * test has them call ({@link Agent}); between calls their packages are replaced and removed with
 * the broadcasts the framework sends, or changed with no broadcast at all ({@link Callers}), and
 * {@link CountingPackageManager} counts the PackageManager queries. Why the invalidation is
 * complete is argued in {@code docs/caller-identity.md}; each case there has a test here.
 */
@RunWith(RobolectricTestRunner.class)
@Category(FixtureProviderBundle.class)
@Config(shadows = CountingPackageManager.class)
public class CallerIdentityCacheE2ETest {
  private static final String AUTHORITY = FixtureProviderE2ETest.AUTHORITY;
  private static final int UID = 10_200;
  private static final String AGENT = "com.example.agent";
  private static final byte[] CERT_A = "agent-cert-A".getBytes(StandardCharsets.UTF_8);
  private static final byte[] CERT_B = "other-cert-B".getBytes(StandardCharsets.UTF_8);

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  private PackageManager pm;

  @Before
  public void setUp() {
    pm = cetp.context().getPackageManager();
    // The first call after process start starts the runtime (library, build, app version): a
    // one-time cost, not part of the steady state these tests count. It comes from the app's own
    // UID, before any agent is installed.
    assertTrue(new CetpTransport().listTools(AUTHORITY).isSuccess());
  }

  /** An agent app installed under {@code uid}, signed with {@code cert}, with no label. */
  private Agent agent(String packageName, int uid, byte[] cert) {
    return cetp.agent(packageName, null, uid, cert);
  }

  /**
   * What the tool saw when {@code agent} called: {@code [uid, [package, [digest...]]...]}
   * flattened to one string.
   */
  private static String whoami(Agent agent) throws Exception {
    return render(agent.call("whoami", "{}").jsonObject());
  }

  private static String render(JSONObject who) throws Exception {
    StringBuilder out = new StringBuilder().append(who.getInt("uid"));
    JSONArray packages = who.getJSONArray("packages");
    for (int i = 0; i < packages.length(); i++) {
      JSONObject p = packages.getJSONObject(i);
      out.append(' ').append(p.getString("name"));
      JSONArray certs = p.getJSONArray("certificates");
      for (int j = 0; j < certs.length(); j++) {
        out.append(j == 0 ? '=' : ',').append(certs.getString(j).substring(0, 8));
      }
    }
    return out.toString();
  }

  private static String seen(int uid, String... packagesWithCerts) {
    StringBuilder out = new StringBuilder().append(uid);
    for (String p : packagesWithCerts) {
      out.append(' ').append(p);
    }
    return out.toString();
  }

  private static String with(String name, byte[] cert) {
    return name + "=" + Callers.sha256Hex(cert).substring(0, 8);
  }

  // ----------------------------------------------------------------------------------------
  // Steady state

  @Test
  public void aKnownCallerCostsNoPackageManagerQueryAfterTheFirstCall() throws Exception {
    Agent agent = agent(AGENT, UID, CERT_A);
    CountingPackageManager.reset();
    assertEquals(seen(UID, with(AGENT, CERT_A)), whoami(agent));
    // One getPackagesForUid and one getPackageInfo per package: the miss.
    assertEquals(1, CountingPackageManager.packagesForUid());
    assertEquals(1, CountingPackageManager.packageInfo());

    CountingPackageManager.reset();
    for (int i = 0; i < 200; i++) {
      assertEquals(seen(UID, with(AGENT, CERT_A)), whoami(agent));
      assertTrue(agent.providerInfo().isSuccess());
      assertTrue(agent.listTools().isSuccess());
    }
    assertEquals(0, CountingPackageManager.queries());
  }

  /** Open discovery answers every caller alike: the kept replies, no caller lookup at all. */
  @Test
  public void openDiscoveryNeverResolvesTheCaller() throws Exception {
    Agent agent = agent(AGENT, UID, CERT_A);
    CountingPackageManager.reset();
    for (int i = 0; i < 20; i++) {
      assertTrue(agent.listTools().isSuccess());
      assertTrue(agent.providerInfo().isSuccess());
    }
    assertEquals(0, CountingPackageManager.queries());
    // The first tool call is the first time this caller is looked up.
    assertEquals(seen(UID, with(AGENT, CERT_A)), whoami(agent));
    assertEquals(1, CountingPackageManager.packagesForUid());
  }

  @Test
  public void aUidWithoutPackagesIsReadOnEveryCallAndNeverCached() throws Exception {
    // No app holds the UID, so no agent calls from it: the kit's transport does.
    Callers.setCallingUid(10_999);
    CountingPackageManager.reset();
    assertEquals(seen(10_999), whoamiFromCallingUid());
    assertEquals(seen(10_999), whoamiFromCallingUid());
    assertEquals(2, CountingPackageManager.packagesForUid());
    // An app installed there later is seen even without a broadcast (none may reach us for a
    // package we cannot see).
    Callers.install(pm, 10_998, AGENT, CERT_A); // the PackageInfo, broadcast for 10_998
    shadowOf(pm).setPackagesForUid(10_999, AGENT);
    assertEquals(seen(10_999, with(AGENT, CERT_A)), whoamiFromCallingUid());
  }

  /** What the tool saw when called from the calling UID set now. */
  private static String whoamiFromCallingUid() throws Exception {
    return render(new CetpTransport().executeTool(AUTHORITY, "whoami", "{}", null).jsonObject());
  }

  // ----------------------------------------------------------------------------------------
  // A token names one identity, for the copy of the template that made it

  /**
   * A second copy of the template's classes in the same process (another class loader: a
   * Robolectric sandbox, an instrumentation test's loader) counts its identities from the start,
   * while the native library and what it knows live once. Its identities never borrow ours: it
   * has no token of ours to give, so the library reads what it sends.
   */
  @Test
  public void aSecondCopyOfTheTemplateNeverGetsTheIdentityOurTokenNamed() throws Exception {
    Agent agent = agent(AGENT, UID, CERT_A);
    assertEquals(seen(UID, with(AGENT, CERT_A)), whoami(agent));
    long ours = tokenOf(UID);
    Class<?> template = Class.forName("dev.cetp.CallerIdentity");
    try (ChildFirst loader = new ChildFirst(template)) {
      Class<?> copy = loader.loadClass(template.getName());
      assertNotSame(template, copy);
      // The copy's identities until one has the number ours has (on a scheme where each copy
      // counts from 1 on its own), for the same UID with another package and key.
      java.lang.reflect.Constructor<?> make =
          copy.getConstructor(int.class, String[].class, String[][].class);
      Object theirs = null;
      for (int made = 0; made < 100_000; made++) {
        theirs =
            make.newInstance(
                    UID,
                    new String[] {"com.example.impostor"},
                    new String[][] {{Callers.sha256Hex(CERT_B)}});
        if (copy.getField("token").getLong(theirs) == ours) {
          break;
        }
      }
      long token = copy.getField("token").getLong(theirs);
      assertEquals(
          seen(UID, with("com.example.impostor", CERT_B)),
          whoamiThroughTheBridge(
              UID, token, new String[] {"com.example.impostor"}, Callers.sha256Hex(CERT_B)));
    }
    // Ours is still known for what it is.
    assertEquals(seen(UID, with(AGENT, CERT_A)), whoami(agent));
  }

  /** The library answers a token with the identity it names only for the UID it was read with. */
  @Test
  public void aTokenThatComesWithAnotherUidIsReadAgain() throws Exception {
    Agent agent = agent(AGENT, UID, CERT_A);
    assertEquals(seen(UID, with(AGENT, CERT_A)), whoami(agent));
    long ours = tokenOf(UID);
    assertEquals(
        seen(10_201, with("com.example.other", CERT_B)),
        whoamiThroughTheBridge(
            10_201, ours, new String[] {"com.example.other"}, Callers.sha256Hex(CERT_B)));
    assertEquals(seen(UID, with(AGENT, CERT_A)), whoami(agent));
  }

  /** The token of the identity the template holds for {@code uid}. */
  private static long tokenOf(int uid) throws Exception {
    Class<?> identity = Class.forName("dev.cetp.CallerIdentity");
    Object held =
        identity
            .getMethod("resolve", android.content.Context.class, int.class)
            .invoke(null, RuntimeEnvironment.getApplication(), uid);
    return identity.getField("token").getLong(held);
  }

  /** {@code whoami} through {@code NativeBridge.call} with the identity given, as a copy would. */
  private static String whoamiThroughTheBridge(
      int uid, long token, String[] packages, String digest) throws Exception {
    Method call =
        Class.forName("dev.cetp.NativeBridge")
            .getDeclaredMethod(
                "call",
                String.class,
                String.class,
                String.class,
                String.class,
                int.class,
                long.class,
                String[].class,
                String[][].class);
    call.setAccessible(true);
    String[] pairs =
        (String[])
            call.invoke(
                null, "execute_tool", "whoami", "{}", null, uid, token, packages,
                new String[][] {{digest}});
    String data = null;
    for (int i = 0; i + 1 < pairs.length; i += 2) {
      if ("data".equals(pairs[i])) {
        data = pairs[i + 1];
      }
    }
    return render(new JSONObject(data));
  }

  /** Loads the template's {@code CallerIdentity} again from the bundle's jar, as a new copy. */
  private static final class ChildFirst extends java.net.URLClassLoader {
    private final String only;

    ChildFirst(Class<?> template) throws Exception {
      super(
          new java.net.URL[] {HostBundle.current().appJar().toUri().toURL()},
          template.getClassLoader());
      this.only = template.getName();
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.equals(only)) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> loaded = findLoadedClass(name);
        return loaded != null ? loaded : findClass(name);
      }
    }
  }

  // ----------------------------------------------------------------------------------------
  // The cases of docs/caller-identity.md

  /** A package uninstalled and installed again with another key keeps its name, not its key. */
  @Test
  public void aPackageReinstalledWithAnotherCertificateIsSeenWithTheNewOne() throws Exception {
    Agent agent = agent(AGENT, UID, CERT_A);
    assertEquals(seen(UID, with(AGENT, CERT_A)), whoami(agent));
    Callers.uninstall(pm, UID, AGENT);
    Agent reinstalled = agent(AGENT, UID, CERT_B);
    assertEquals(seen(UID, with(AGENT, CERT_B)), whoami(reinstalled));
  }

  /**
   * A change whose broadcasts are late: Android 14+ queues them while the app is cached, and the
   * Binder call that wakes the app can arrive first. Calls close together keep the cached identity
   * (the window {@code docs/caller-identity.md} names); the first call after a pause asks the
   * PackageManager what changed and sees the new signer.
   */
  @Test
  public void aChangeWhoseBroadcastIsLateIsSeenByTheFirstCallAfterAPause() throws Exception {
    Agent agent = agent(AGENT, UID, CERT_A);
    assertEquals(seen(UID, with(AGENT, CERT_A)), whoami(agent));
    Callers.installQuietly(pm, UID, AGENT, null, CERT_B); // no broadcast delivered yet
    assertEquals(seen(UID, with(AGENT, CERT_A)), whoami(agent));
    ShadowSystemClock.advanceBy(Duration.ofMillis(1_000));
    CountingPackageManager.reset();
    assertEquals(seen(UID, with(AGENT, CERT_B)), whoami(agent));
    assertTrue(
        String.valueOf(CountingPackageManager.changedPackages()),
        CountingPackageManager.changedPackages() >= 1);
    // Back to calls close together: no more questions.
    CountingPackageManager.reset();
    for (int i = 0; i < 50; i++) {
      assertEquals(seen(UID, with(AGENT, CERT_B)), whoami(agent));
    }
    assertEquals(0, CountingPackageManager.queries());
  }

  /** A pause with nothing changed since the last look costs one question and keeps the identity. */
  @Test
  public void aPauseWithoutChangesKeepsTheIdentity() throws Exception {
    Agent agent = agent(AGENT, UID, CERT_A);
    assertEquals(seen(UID, with(AGENT, CERT_A)), whoami(agent));
    // The first pause catches up with the install itself (already broadcast, so it costs one
    // read of the identity again); the next one has nothing new.
    ShadowSystemClock.advanceBy(Duration.ofMillis(5_000));
    assertEquals(seen(UID, with(AGENT, CERT_A)), whoami(agent));
    ShadowSystemClock.advanceBy(Duration.ofMillis(5_000));
    CountingPackageManager.reset();
    assertEquals(seen(UID, with(AGENT, CERT_A)), whoami(agent));
    assertEquals(1, CountingPackageManager.changedPackages());
    assertEquals(0, CountingPackageManager.packagesForUid());
  }

  /**
   * The pause is counted per UID: another app calling every half second (refused or not) never
   * keeps a quiet UID's identity from being checked again when it calls after its own pause.
   */
  @Test
  public void anotherAppsSteadyCallsDoNotKeepAQuietUidFromBeingChecked() throws Exception {
    Agent busy = agent("com.example.busy", 10_300, CERT_B);
    Agent agent = agent(AGENT, UID, CERT_A);
    assertEquals(seen(UID, with(AGENT, CERT_A)), whoami(agent));
    Callers.installQuietly(pm, UID, AGENT, null, CERT_B); // replaced, no broadcast delivered yet
    for (int i = 0; i < 20; i++) {
      ShadowSystemClock.advanceBy(Duration.ofMillis(500));
      assertEquals(seen(busy.uid(), with("com.example.busy", CERT_B)), whoami(busy));
    }
    CountingPackageManager.reset();
    assertEquals(seen(UID, with(AGENT, CERT_B)), whoami(agent));
    assertTrue(
        String.valueOf(CountingPackageManager.changedPackages()),
        CountingPackageManager.changedPackages() >= 1);
  }

  /** An update (REMOVED + ADDED + REPLACED with EXTRA_REPLACING) that changes the signers. */
  @Test
  public void anUpdateThatChangesTheSignersIsSeen() throws Exception {
    Agent agent = agent(AGENT, UID, CERT_A);
    assertEquals(seen(UID, with(AGENT, CERT_A)), whoami(agent));
    Agent updated = agent(AGENT, UID, CERT_B); // replacing: the update broadcasts
    assertEquals(seen(UID, with(AGENT, CERT_B)), whoami(updated));
  }

  /** The UID of an uninstalled app given to a new, unrelated app. */
  @Test
  public void aUidReusedAfterUninstallBelongsToTheNewApp() throws Exception {
    Agent trusted = agent("com.example.trusted", UID, CERT_A);
    assertEquals(seen(UID, with("com.example.trusted", CERT_A)), whoami(trusted));
    Callers.uninstall(pm, UID, "com.example.trusted");
    assertEquals(seen(UID), whoami(trusted)); // its UID, calling with no package left
    Agent newcomer = agent("com.example.newcomer", UID, CERT_B);
    assertEquals(seen(UID, with("com.example.newcomer", CERT_B)), whoami(newcomer));
  }

  /** Packages joining and leaving a shared UID. */
  @Test
  public void aSharedUidIsSeenWithEveryPackageItHoldsNow() throws Exception {
    Agent agent = agent(AGENT, UID, CERT_A);
    assertEquals(seen(UID, with(AGENT, CERT_A)), whoami(agent));
    Agent helper = agent("com.example.helper", UID, CERT_B);
    assertEquals(
        seen(UID, with(AGENT, CERT_A), with("com.example.helper", CERT_B)), whoami(helper));
    Callers.uninstall(pm, UID, AGENT);
    assertEquals(seen(UID, with("com.example.helper", CERT_B)), whoami(helper));
  }

  /**
   * Each broadcast on its own drops the UID: the PackageManager is changed silently, the old
   * identity is still served (the cache is in use), then the broadcast makes the next call see
   * the new one.
   */
  @Test
  public void everyPackageBroadcastInvalidatesTheUidItNames() throws Exception {
    String[] actions = {
      Intent.ACTION_PACKAGE_ADDED,
      Intent.ACTION_PACKAGE_REPLACED,
      Intent.ACTION_PACKAGE_REMOVED,
      Intent.ACTION_PACKAGE_FULLY_REMOVED,
      Intent.ACTION_PACKAGE_CHANGED,
      Intent.ACTION_UID_REMOVED,
    };
    Agent agent = agent(AGENT, UID, CERT_A);
    String previous = "com.example.agent";
    for (String action : actions) {
      assertTrue(whoami(agent).startsWith(seen(UID, previous)));
      String next = "com.example." + action.substring(action.lastIndexOf('.') + 1).toLowerCase();
      Callers.install(pm, 10_201, next, CERT_B); // a PackageInfo for it, broadcast for 10_201
      shadowOf(pm).setPackagesForUid(UID, next); // ... and silently moved to UID
      assertTrue(action + ": still cached", whoami(agent).startsWith(seen(UID, previous + "=")));
      Intent intent = new Intent(action);
      if (!action.equals(Intent.ACTION_UID_REMOVED)) {
        intent.setData(Uri.fromParts("package", next, null));
      }
      Callers.broadcast(intent.putExtra(Intent.EXTRA_UID, UID));
      assertEquals(action, seen(UID, with(next, CERT_B)), whoami(agent));
      previous = next;
    }
  }

  @Test
  public void theSameAppInAnotherUserIsInvalidatedToo() throws Exception {
    Agent agent = agent(AGENT, UID, CERT_A);
    assertEquals(seen(UID, with(AGENT, CERT_A)), whoami(agent));
    Callers.install(pm, 10_201, "com.example.other", CERT_B);
    shadowOf(pm).setPackagesForUid(UID, "com.example.other");
    // User 10's copy of the same app ID: 10 * 100000 + 10200.
    Callers.broadcast(
        new Intent(Intent.ACTION_PACKAGE_REMOVED, Uri.fromParts("package", AGENT, null))
            .putExtra(Intent.EXTRA_UID, 1_010_200));
    assertEquals(seen(UID, with("com.example.other", CERT_B)), whoami(agent));
  }

  @Test
  public void aBroadcastWithoutUidDropsEverything() throws Exception {
    Agent agent = agent(AGENT, UID, CERT_A);
    assertEquals(seen(UID, with(AGENT, CERT_A)), whoami(agent));
    Callers.install(pm, 10_201, "com.example.other", CERT_B);
    shadowOf(pm).setPackagesForUid(UID, "com.example.other");
    Callers.broadcast(new Intent(Intent.ACTION_EXTERNAL_APPLICATIONS_UNAVAILABLE));
    assertEquals(seen(UID, with("com.example.other", CERT_B)), whoami(agent));
  }

  @Test
  public void aBroadcastForAnotherUidKeepsThisOne() throws Exception {
    Agent agent = agent(AGENT, UID, CERT_A);
    assertEquals(seen(UID, with(AGENT, CERT_A)), whoami(agent));
    agent("com.example.other", 10_201, CERT_B);
    CountingPackageManager.reset();
    assertEquals(seen(UID, with(AGENT, CERT_A)), whoami(agent));
    assertEquals(0, CountingPackageManager.queries());
  }

  @Test
  public void theCacheHoldsAtMostItsCapacity() throws Exception {
    int capacity = (int) bridgeStatic("CallerIdentityCache", "MAX_ENTRIES");
    List<Agent> callers = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < capacity + 20; i++) {
      int uid = 11_000 + i;
      Agent caller = agent("com.example.caller" + i, uid, CERT_A);
      callers.add(caller);
      String answer = whoami(caller);
      expected.add(answer);
      assertEquals(seen(uid, with("com.example.caller" + i, CERT_A)), answer);
    }
    Method size =
        Class.forName("dev.cetp.CallerIdentityCache")
            .getDeclaredMethod("size", android.content.Context.class);
    size.setAccessible(true);
    int held = (int) size.invoke(null, RuntimeEnvironment.getApplication());
    assertTrue("held " + held, held > 0 && held <= capacity);
    // Evicted callers are read again, correctly.
    for (int i = 0; i < capacity + 20; i++) {
      assertEquals(expected.get(i), whoami(callers.get(i)));
    }
  }

  private static Object bridgeStatic(String cls, String field) throws Exception {
    java.lang.reflect.Field f = Class.forName("dev.cetp." + cls).getDeclaredField(field);
    f.setAccessible(true);
    return f.get(null);
  }
}
