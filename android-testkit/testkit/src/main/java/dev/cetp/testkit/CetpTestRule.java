package dev.cetp.testkit;

import android.app.Notification;
import android.content.Context;
import android.content.Intent;
import android.content.pm.PackageManager;
import android.content.pm.ProviderInfo;
import android.content.pm.ResolveInfo;
import android.content.pm.ServiceInfo;
import android.os.Bundle;
import dev.cetp.testkit.internal.Callers;
import dev.cetp.testkit.internal.CetpTransport;
import dev.cetp.testkit.internal.HostBundle;
import dev.cetp.testkit.internal.ManifestInstaller;
import dev.cetp.testkit.internal.RuntimeProbe;
import dev.cetp.testkit.internal.TestJvm;
import dev.cetp.testkit.internal.Wire;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.AssumptionViolatedException;
import org.junit.rules.TestRule;
import org.junit.runner.Description;
import org.junit.runners.model.Statement;
import org.robolectric.RuntimeEnvironment;

/**
 * The JUnit 4 rule of an app's own provider tests: before each test it checks that Robolectric
 * runs as the app needs (offline, SDK 34, the bundle's app as the test application), installs
 * the host bundle's components from its merged manifest and starts its providers (the template's
 * {@code CetpToolProvider} loads the app's Rust library on the first call); after it, it closes
 * every screen and plugin binding the test opened.
 *
 * <p>The bundle is the one the test JVM was started with ({@code -Dcetp.bundle}, its {@code
 * app.jar} on the classpath, its directory on {@code java.library.path}): {@code cargo cetp test}
 * sets all three. Use it with Robolectric's runner, which gives every test a fresh application:
 *
 * <pre>{@code
 * @RunWith(RobolectricTestRunner.class)
 * public class ProviderTest {
 *   @Rule public final CetpTestRule cetp = new CetpTestRule();
 *
 *   @Test
 *   public void listsItsTools() {
 *     ToolReply tools = cetp.agent("com.example.agent").listTools().assertSuccess();
 *     assertEquals("find_items",
 *         tools.jsonObject().getJSONArray("tools").getJSONObject(0).getString("name"));
 *   }
 * }
 * }</pre>
 *
 * <p>In Kotlin: {@code @get:Rule val cetp = CetpTestRule()}.
 *
 * <p>Started without a bundle (the app's own {@code ./gradlew test}, which compiles these tests
 * with the rest of the app's unit tests), each test is skipped, as a failed JUnit assumption
 * that says to run it with {@code cargo cetp test}.
 */
public final class CetpTestRule implements TestRule {
  /** The first UID {@link #agent(String)} gives an agent app. */
  public static final int FIRST_AGENT_UID = 10_200;

  private HostBundle bundle;
  private ManifestInstaller.Installed installed;
  private CetpTransport transport;
  private int nextUid = FIRST_AGENT_UID;
  private final Deque<AutoCloseable> opened = new ArrayDeque<>();

  /** A rule for the bundle this JVM runs ({@code -Dcetp.bundle}). */
  public CetpTestRule() {}

  @Override
  public Statement apply(Statement base, Description description) {
    return new Statement() {
      @Override
      public void evaluate() throws Throwable {
        start();
        Throwable failure = null;
        try {
          base.evaluate();
        } catch (Throwable t) {
          failure = t;
        }
        Throwable closing = closeAll();
        if (failure != null) {
          throw failure;
        }
        if (closing != null) {
          throw closing;
        }
      }
    };
  }

  private void start() {
    if (System.getProperty(HostBundle.PROPERTY) == null) {
      // The app's own Gradle build compiles these tests; only `cargo cetp test` has the bundle.
      throw new AssumptionViolatedException(
          "skipped: no host bundle (-D"
              + HostBundle.PROPERTY
              + "). Tests through the test kit run with `cargo cetp test`, which builds the app's"
              + " host bundle and starts the test JVM with it; the app's own Gradle build"
              + " compiles them and skips them");
    }
    TestJvm.requireRobolectric();
    bundle = HostBundle.current();
    installed = bundle.install();
    installed.startProviders();
    transport = new CetpTransport();
  }

  private Throwable closeAll() {
    Throwable first = null;
    while (!opened.isEmpty()) {
      try {
        opened.pop().close();
      } catch (Throwable t) {
        if (first == null) {
          first = t;
        }
      }
    }
    return first;
  }

  private void requireStarted() {
    if (installed == null) {
      throw new IllegalStateException(
          "the rule has not started: declare it as `@Rule public final CetpTestRule cetp = new"
              + " CetpTestRule();` (Kotlin: `@get:Rule val cetp = CetpTestRule()`) and use it"
              + " inside a test");
    }
  }

  /** @return the host bundle under test */
  HostBundle bundle() {
    requireStarted();
    return bundle;
  }

  /** @return the installed app: its parsed manifest and started providers */
  ManifestInstaller.Installed installed() {
    requireStarted();
    return installed;
  }

  /** @return the app's package (its application id) */
  public String packageName() {
    return installed().manifest.packageName();
  }

  /** @return the app itself, as Robolectric runs it */
  public Context context() {
    return RuntimeEnvironment.getApplication();
  }

  /**
   * The authority agents call, as they discover it (the discovery Service's meta-data).
   *
   * @return the authority
   * @throws IllegalStateException when the app serves no CETP provider
   */
  public String authority() {
    requireStarted();
    List<CetpTransport.Discovered> found = transport.discover();
    for (CetpTransport.Discovered provider : found) {
      if (provider.packageName.equals(packageName())) {
        return provider.authority;
      }
    }
    throw new IllegalStateException(
        packageName()
            + " serves no CETP provider that agents can discover (found "
            + found
            + "); is cetp_serve_cetp false in its Gradle file?");
  }

  /**
   * The meta-data of the app's discovery Service, as agents read it ({@code
   * queryIntentServices} with {@code GET_META_DATA}).
   *
   * @return a copy
   * @throws IllegalStateException when the app has no discovery Service with meta-data
   */
  public Bundle discoveryMetaData() {
    requireStarted();
    PackageManager pm = context().getPackageManager();
    for (ResolveInfo found :
        pm.queryIntentServices(
            new Intent(Wire.DISCOVERY_ACTION), PackageManager.GET_META_DATA)) {
      ServiceInfo service = found.serviceInfo;
      if (service != null
          && packageName().equals(service.packageName)
          && service.metaData != null) {
        return new Bundle(service.metaData);
      }
    }
    throw new IllegalStateException(packageName() + " has no discovery Service with meta-data");
  }

  /**
   * The CETP versions the app advertises, read as ClawSeed's newest client reads them: the
   * discovery Service's {@code com.clawseed.tools.versions} with {@code getString} (a value
   * compiled as an integer reads as null), split at commas; without it, {@code
   * com.clawseed.tools.version} with {@code getInt} (default 1).
   *
   * @return the versions, in the manifest's order
   */
  public List<Integer> advertisedVersions() {
    Bundle meta = discoveryMetaData();
    String versions = meta.getString(CetpV2.META_VERSIONS);
    List<Integer> out = new ArrayList<>();
    if (versions == null) {
      out.add(meta.getInt(CetpV2.META_VERSION, 1));
      return out;
    }
    for (String part : versions.split(",")) {
      try {
        out.add(Integer.parseInt(part.trim()));
      } catch (NumberFormatException e) {
        // The client skips what is not a number.
      }
    }
    return out;
  }

  /**
   * The client skips a provider whose authority resolves to another app than the discovery
   * Service's ({@code resolveContentProvider}).
   */
  void requireProviderOfDiscoveryPackage() {
    ProviderInfo provider = context().getPackageManager().resolveContentProvider(authority(), 0);
    if (provider == null || !packageName().equals(provider.packageName)) {
      throw new AssertionError(
          authority() + " does not resolve to a provider of " + packageName() + ": " + provider);
    }
  }

  /**
   * The app's process restarts, as after Android killed it: the next call starts the runtime
   * afresh (the Rust library's provider is built again: state in memory is gone, files stay, CETP
   * v2 session tokens issued before are refused), and the app's providers are created anew.
   */
  public void restartApp() {
    requireStarted();
    RuntimeProbe.restart();
    for (ProviderInfo provider : nonNull(installed.packageInfo().providers)) {
      installed.startProvider(installed.providerInfo(provider.authority.split(";")[0]));
    }
  }

  private static ProviderInfo[] nonNull(ProviderInfo[] providers) {
    return providers == null ? new ProviderInfo[0] : providers;
  }

  /** @return how the agents' calls travel */
  CetpTransport transport() {
    requireStarted();
    return transport;
  }

  /**
   * An agent app installed under the next free UID (from {@link #FIRST_AGENT_UID}, never the
   * app's own), labelled with its package, signed with a certificate of its own, not approved
   * yet.
   *
   * @param packageName the agent's package, e.g. {@code com.example.agent}
   * @return the agent
   */
  public Agent agent(String packageName) {
    if (nextUid == android.os.Process.myUid()) {
      nextUid++; // never the app's own UID (the kit pins it below these: FixedAppUid)
    }
    return agent(
        packageName,
        packageName,
        nextUid++,
        (packageName + " signing certificate").getBytes(StandardCharsets.UTF_8));
  }

  /**
   * An agent app exactly as given.
   *
   * @param packageName its package
   * @param label the name the user sees (the consent screens show it)
   * @param uid its UID (10000 and up are apps)
   * @param certificate its signing certificate's bytes (grants are pinned to their SHA-256)
   * @return the agent
   */
  public Agent agent(String packageName, String label, int uid, byte[] certificate) {
    requireStarted();
    Callers.installLabelled(context().getPackageManager(), uid, packageName, label, certificate);
    return new Agent(this, uid, packageName, label, certificate);
  }

  /**
   * Opens Apps with access as the app's own settings would (the screen is not exported: no
   * other app can open it).
   *
   * @return the screen, closed when the test ends
   */
  public AppsWithAccess openAppsWithAccess() {
    requireStarted();
    return track(AppsWithAccess.open(packageName()));
  }

  /** Closes {@code closeable} when the test ends. */
  <T extends AutoCloseable> T track(T closeable) {
    opened.push(closeable);
    return closeable;
  }

  /**
   * The user taps a notification the app posted (the one that asks about an agent the app
   * refused over Apex, which has no authorize intent): its content PendingIntent, created by the
   * app for an Activity, is started as the app, as the platform starts it.
   *
   * @param notification a notification the app posted
   * @return the consent dialog it opens, closed when the test ends
   * @throws AssertionError when tapping it opens nothing of the app's
   */
  public ConsentDialog openNotification(Notification notification) {
    requireStarted();
    if (notification.contentIntent == null) {
      throw new AssertionError("the notification opens nothing when tapped: " + notification);
    }
    return track(ConsentDialog.openPendingIntent(packageName(), notification.contentIntent));
  }
}
