package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import android.content.Intent;
import android.content.pm.ActivityInfo;
import android.content.pm.PackageInfo;
import android.content.pm.PackageManager;
import android.content.pm.PermissionInfo;
import android.content.pm.ProviderInfo;
import android.content.pm.ResolveInfo;
import android.content.pm.ServiceInfo;
import android.os.Bundle;
// Internal: the installer's own tests, the kit's discovery of what it installed, Wire's action.
import dev.cetp.testkit.internal.CetpTransport;
import dev.cetp.testkit.internal.HostBundle;
import dev.cetp.testkit.internal.ManifestInstaller;
import dev.cetp.testkit.internal.TestJvm;
import dev.cetp.testkit.internal.Wire;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;

/**
 * Harness self-tests that need no bundle (default-test execution): the manifest parser and
 * installer, checked against the fixture manifest and small inline manifests.
 */
@RunWith(RobolectricTestRunner.class)
public class ManifestInstallerTest {
  private static final String FIXTURE_PKG = "dev.cetp.fixture";
  private static final String TOOLS_PERMISSION = "com.clawseed.permission.ACCESS_TOOLS";

  @Rule public final TemporaryFolder tmp = new TemporaryFolder();

  private Path fixtureManifest;
  private PackageManager pm;

  @Before
  public void setUp() throws Exception {
    fixtureManifest =
        Paths.get(getClass().getResource("/fixture-app/AndroidManifest.xml").toURI());
    pm = RuntimeEnvironment.getApplication().getPackageManager();
  }

  @Test
  public void jvmIsConfigured() {
    TestJvm.requireConfigured();
  }

  @Test
  @SuppressWarnings("deprecation")
  public void metaDataIsTypedLikeAapt() {
    ServiceInfo s =
        ManifestInstaller.parse(fixtureManifest).service(FIXTURE_PKG + ".FixtureDiscoveryService");
    Bundle md = s.metaData;
    assertEquals(Integer.valueOf(1), md.get("com.clawseed.tools.version"));
    assertEquals("dev.cetp.fixture.tools", md.get("com.clawseed.tools.authority"));
    assertEquals(Boolean.TRUE, md.get("dev.cetp.fixture.enabled"));
    assertEquals(Float.valueOf(0.5f), md.get("dev.cetp.fixture.ratio"));
    assertEquals(Integer.valueOf(16), md.get("dev.cetp.fixture.mask"));
    assertEquals("tools for tests", md.get("dev.cetp.fixture.label"));
    assertEquals(1, md.getInt("com.clawseed.tools.version", 99));
  }

  @Test
  public void valueTyping() {
    assertEquals(1, ManifestInstaller.metaDataValue("1"));
    assertEquals(-3, ManifestInstaller.metaDataValue("-3"));
    assertEquals(16, ManifestInstaller.metaDataValue("0x10"));
    assertEquals(0xFFFF0000, ManifestInstaller.metaDataValue("#ff0000"));
    assertEquals(0x80FF0000, ManifestInstaller.metaDataValue("#80ff0000"));
    assertEquals(0xFFFF0000, ManifestInstaller.metaDataValue("#f00"));
    assertEquals(Boolean.FALSE, ManifestInstaller.metaDataValue("false"));
    assertEquals(1.5f, ManifestInstaller.metaDataValue("1.5"));
    assertEquals("1.0.0", ManifestInstaller.metaDataValue("1.0.0"));
    assertEquals("True", ManifestInstaller.metaDataValue("True"));
    assertEquals("@literal", ManifestInstaller.metaDataValue("\\@literal"));
    assertThrows(
        IllegalArgumentException.class, () -> ManifestInstaller.metaDataValue("@string/name"));
  }

  @Test
  public void componentsAndRelativeNames() {
    PackageInfo pi = ManifestInstaller.parse(fixtureManifest).packageInfo;
    assertEquals(FIXTURE_PKG, pi.packageName);
    assertEquals(34, pi.applicationInfo.targetSdkVersion);
    assertEquals(26, pi.applicationInfo.minSdkVersion);
    assertEquals(1, pi.services.length);
    assertEquals(FIXTURE_PKG + ".FixtureDiscoveryService", pi.services[0].name);
    assertTrue(pi.services[0].exported);
    assertEquals(TOOLS_PERMISSION, pi.services[0].permission);
    assertEquals(FIXTURE_PKG + ".AuthorizeActivity", pi.activities[0].name);
    assertEquals(FIXTURE_PKG + ".FixtureReceiver", pi.receivers[0].name);
    assertFalse(pi.receivers[0].exported);
    assertEquals(
        Arrays.asList("android.permission.INTERNET", TOOLS_PERMISSION),
        Arrays.asList(pi.requestedPermissions));
  }

  @Test
  @SuppressWarnings("deprecation")
  public void providerInfo() {
    ProviderInfo p = ManifestInstaller.parse(fixtureManifest).provider("dev.cetp.fixture.tools");
    assertEquals(FIXTURE_PKG + ".FixtureToolProvider", p.name);
    assertEquals(FIXTURE_PKG, p.packageName);
    assertTrue(p.exported);
    assertEquals(TOOLS_PERMISSION, p.readPermission);
    assertEquals(TOOLS_PERMISSION, p.writePermission);
    assertEquals(100, p.initOrder);
    assertEquals(Integer.valueOf(262144), p.metaData.get("dev.cetp.fixture.provider.limit"));
    assertEquals(ManifestInstaller.DEFAULT_APP_UID, p.applicationInfo.uid);
  }

  @Test
  public void installMakesComponentsResolvable() throws Exception {
    CetpTransport transport = new CetpTransport();
    assertTrue("nothing installed yet", transport.discover().isEmpty());

    ManifestInstaller.install(fixtureManifest);

    List<ResolveInfo> services =
        pm.queryIntentServices(
            new Intent(Wire.DISCOVERY_ACTION), PackageManager.GET_META_DATA);
    assertEquals(1, services.size());
    assertEquals(FIXTURE_PKG + ".FixtureDiscoveryService", services.get(0).serviceInfo.name);
    assertEquals(1, services.get(0).serviceInfo.metaData.getInt("com.clawseed.tools.version"));

    List<CetpTransport.Discovered> found = transport.discover();
    assertEquals(1, found.size());
    assertEquals("dev.cetp.fixture.tools", found.get(0).authority);

    List<ResolveInfo> activities =
        pm.queryIntentActivities(new Intent("dev.cetp.fixture.action.AUTHORIZE"), 0);
    assertEquals(1, activities.size());
    assertEquals(FIXTURE_PKG + ".AuthorizeActivity", activities.get(0).activityInfo.name);

    List<ResolveInfo> receivers =
        pm.queryBroadcastReceivers(new Intent("dev.cetp.fixture.action.PING"), 0);
    assertEquals(1, receivers.size());
    assertEquals(FIXTURE_PKG + ".FixtureReceiver", receivers.get(0).activityInfo.name);

    PermissionInfo perm = pm.getPermissionInfo(TOOLS_PERMISSION, 0);
    assertEquals(FIXTURE_PKG, perm.packageName);
    assertEquals(PermissionInfo.PROTECTION_NORMAL, perm.getProtection());
    PermissionInfo priv = pm.getPermissionInfo("dev.cetp.fixture.permission.PRIVATE", 0);
    assertEquals(PermissionInfo.PROTECTION_SIGNATURE, priv.getProtection());
    assertEquals(
        PermissionInfo.PROTECTION_FLAG_PRIVILEGED,
        priv.getProtectionFlags() & PermissionInfo.PROTECTION_FLAG_PRIVILEGED);

    assertEquals(
        Arrays.asList(FIXTURE_PKG),
        Arrays.asList(pm.getPackagesForUid(ManifestInstaller.DEFAULT_APP_UID)));
    PackageInfo installed = pm.getPackageInfo(FIXTURE_PKG, PackageManager.GET_PROVIDERS);
    assertEquals("dev.cetp.fixture.tools", installed.providers[0].authority);
  }

  @Test
  public void fixtureClassesAreNotOnThisExecutionsClasspath() {
    // They reach a JVM only through the bundle wiring (bundle-fixture execution).
    assertThrows(
        ClassNotFoundException.class,
        () -> Class.forName("dev.cetp.fixture.FixtureToolProvider"));
    ManifestInstaller.Installed app = ManifestInstaller.install(fixtureManifest);
    IllegalStateException e = assertThrows(IllegalStateException.class, app::startProviders);
    assertTrue(e.getMessage(), e.getMessage().contains("not on the test classpath"));
    assertThrows(IllegalStateException.class, HostBundle::current);
  }

  @Test
  public void placeholdersAndMissingPackage() throws Exception {
    Path m =
        write(
            "<manifest xmlns:android='http://schemas.android.com/apk/res/android'>"
                + "<application><provider android:name='.P'"
                + " android:authorities='${applicationId}.${suffix}'/></application></manifest>");
    IllegalArgumentException noPkg =
        assertThrows(IllegalArgumentException.class, () -> ManifestInstaller.parse(m));
    assertTrue(noPkg.getMessage(), noPkg.getMessage().contains("package"));

    IllegalArgumentException unresolved =
        assertThrows(
            IllegalArgumentException.class,
            () -> ManifestInstaller.parse(m, new ManifestInstaller.Options().packageName("a.b")));
    assertTrue(unresolved.getMessage(), unresolved.getMessage().contains("${suffix}"));

    ProviderInfo p =
        ManifestInstaller.parse(
                m, new ManifestInstaller.Options().packageName("a.b").placeholder("suffix", "t"))
            .provider("a.b.t");
    assertEquals("a.b.P", p.name);
    assertFalse("providers default to not exported", p.exported);
    assertNull(p.readPermission);
  }

  @Test
  public void resourceMetaDataIsTheResourcesId() throws Exception {
    String manifest =
        "<manifest xmlns:android='http://schemas.android.com/apk/res/android' package='a.b'>"
            + "<application><provider android:name='a.b.Files' android:authorities='a.b.files'>"
            + "<meta-data android:name='paths' android:resource='@android:string/ok'/>"
            + "</provider></application></manifest>";
    ProviderInfo p = ManifestInstaller.parse(write(manifest)).provider("a.b.files");
    assertEquals(android.R.string.ok, p.metaData.getInt("paths"));
    IllegalArgumentException missing =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                ManifestInstaller.parse(
                    write(manifest.replace("@android:string/ok", "@android:xml/no_such_paths"))));
    assertTrue(missing.getMessage(), missing.getMessage().contains("names no resource"));
    assertThrows(
        IllegalArgumentException.class,
        () -> ManifestInstaller.parse(write(manifest.replace("@android:string/ok", "paths.xml"))));
  }

  @Test
  public void malformedInputIsRejected() throws Exception {
    assertThrows(
        IllegalArgumentException.class, () -> ManifestInstaller.parse(write("<manifest")));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            ManifestInstaller.parse(
                write(
                    "<manifest xmlns:android='http://schemas.android.com/apk/res/android'"
                        + " package='a.b'><application><service/></application></manifest>")));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            ManifestInstaller.parse(
                write(
                    "<manifest xmlns:android='http://schemas.android.com/apk/res/android'"
                        + " package='a.b'><application><service android:name='.S'"
                        + " android:exported='yes'/></application></manifest>")));
    // No external entities / DOCTYPE.
    assertThrows(
        IllegalArgumentException.class,
        () ->
            ManifestInstaller.parse(
                write(
                    "<!DOCTYPE m [<!ENTITY x SYSTEM 'file:///etc/passwd'>]>"
                        + "<manifest package='a.b'>&x;</manifest>")));
  }

  @Test
  public void activityAliasAndDefaultExported() throws Exception {
    ManifestInstaller.Parsed parsed =
        ManifestInstaller.parse(
            write(
                "<manifest xmlns:android='http://schemas.android.com/apk/res/android'"
                    + " package='a.b'><application>"
                    + "<activity android:name='.Main'/>"
                    + "<activity-alias android:name='.Alias' android:targetActivity='.Main'>"
                    + "<intent-filter><action android:name='a.b.GO'/>"
                    + "<category android:name='android.intent.category.DEFAULT'/>"
                    + "</intent-filter></activity-alias>"
                    + "</application></manifest>"));
    ActivityInfo main = parsed.packageInfo.activities[0];
    ActivityInfo alias = parsed.packageInfo.activities[1];
    assertFalse("no filter: not exported", main.exported);
    assertTrue("filter: exported", alias.exported);
    assertEquals("a.b.Main", alias.targetActivity);
    parsed.install(pm);
    List<ResolveInfo> r = pm.queryIntentActivities(new Intent("a.b.GO"), 0);
    assertEquals(1, r.size());
    assertNotNull(r.get(0).activityInfo);
    assertEquals("a.b.Alias", r.get(0).activityInfo.name);
  }

  private Path write(String xml) throws Exception {
    Path p = tmp.newFile().toPath();
    Files.write(p, xml.getBytes(StandardCharsets.UTF_8));
    return p;
  }
}
