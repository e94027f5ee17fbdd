package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import android.content.ContentProvider;
import android.net.Uri;
import android.os.Bundle;
import android.os.Parcel;
import android.os.Parcelable;
import android.os.Process;
import dev.cetp.e2e.category.FixtureBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.CallForm;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.CetpV2;
import dev.cetp.testkit.ToolReply;
// Internal: the kit's own machinery (bundle wiring, discovery, Parcel round trip, calling UID).
import dev.cetp.testkit.internal.Callers;
import dev.cetp.testkit.internal.CetpTransport;
import dev.cetp.testkit.internal.HostBundle;
import dev.cetp.testkit.internal.TestJvm;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
 * Smoke tests of the test kit against the pure-Java fixture, loaded exactly like a host bundle
 * (bundle-fixture execution: app.jar on the classpath, -Dcetp.bundle set): the rule and an agent
 * as an app's test uses them, and the machinery underneath (the bundle's wiring, discovery, the
 * Parcel round trip, the calling UID).
 */
@RunWith(RobolectricTestRunner.class)
@Category(FixtureBundle.class)
public class FixtureBundleTest {
  private static final String AUTHORITY = "dev.cetp.fixture.tools";
  private static final String PROVIDER_CLASS = "dev.cetp.fixture.FixtureToolProvider";
  private static final int AGENT_UID = 10_123;
  private static final byte[] AGENT_CERT = "agent-signing-cert".getBytes(StandardCharsets.UTF_8);

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  private Agent agent;
  private ExecutorService pool;

  @Before
  public void setUp() {
    agent = cetp.agent("com.example.agent", null, AGENT_UID, AGENT_CERT);
  }

  @After
  public void tearDown() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }

  @Test
  public void jvmIsConfiguredForTheBundle() {
    TestJvm.requireConfigured();
    HostBundle bundle = HostBundle.current();
    assertTrue(
        System.getProperty("java.library.path"),
        System.getProperty("java.library.path").contains(bundle.dir().toString()));
  }

  @Test
  public void providerClassComesFromTheBundleJar() throws Exception {
    HostBundle bundle = HostBundle.current();
    assertEquals("fixture", bundle.name());
    ContentProvider provider = FixtureProviderE2ETest.startedProvider(cetp, AUTHORITY);
    assertEquals(PROVIDER_CLASS, provider.getClass().getName());
    URL where =
        provider
            .getClass()
            .getClassLoader()
            .getResource(PROVIDER_CLASS.replace('.', '/') + ".class");
    assertNotNull(where);
    assertTrue(where.toString(), where.toString().startsWith("jar:"));
    assertTrue(where.toString(), where.toString().contains(bundle.appJar().toString()));
  }

  @Test
  public void discoveryFindsAuthorityAndIntegerVersion() {
    List<CetpTransport.Discovered> found = new CetpTransport().discover();
    assertEquals(found.toString(), 1, found.size());
    CetpTransport.Discovered d = found.get(0);
    assertEquals("dev.cetp.fixture", d.packageName);
    assertEquals("dev.cetp.fixture.FixtureDiscoveryService", d.serviceClass);
    assertEquals(AUTHORITY, d.authority);
    assertEquals(1, d.version);
    assertEquals(Integer.class, d.rawVersion.getClass());
  }

  @Test
  public void bothCallFormsReachTheProvider() throws Exception {
    for (CallForm form : CallForm.values()) {
      ToolReply r = agent.request(form, CetpV2.METHOD_LIST_TOOLS, new Bundle());
      assertTrue(form + ": " + r, r.isSuccess());
      JSONArray tools = r.tools();
      assertEquals(3, tools.length());
      List<String> names = new ArrayList<>();
      for (int i = 0; i < tools.length(); i++) {
        JSONObject t = tools.getJSONObject(i);
        names.add(t.getString("name"));
        assertEquals("object", t.getJSONObject("parameters").getString("type"));
      }
      assertEquals(List.of("whoami", "echo", "needs_auth"), names);

      ToolReply info = agent.request(form, CetpV2.METHOD_GET_PROVIDER_INFO, new Bundle());
      assertTrue(info.isSuccess());
      assertEquals(1, info.jsonObject().getInt("protocol_version"));
    }
  }

  @Test
  public void repliesAreParcelledBeforeTheyAreRead() throws Exception {
    Class<?> providerClass = Class.forName(PROVIDER_CLASS);
    // Robolectric hands the provider's own Bundle to the caller...
    Bundle direct =
        cetp.context()
            .getContentResolver()
            .call(Uri.parse("content://" + AUTHORITY), "list_tools", null, new Bundle());
    assertSame(providerClass.getField("lastReply").get(null), direct);
    // ...the agent reads a copy that went through a Parcel.
    ToolReply r = agent.listTools();
    Bundle last = (Bundle) providerClass.getField("lastReply").get(null);
    assertNotSame(last, r.bundle());
    assertEquals(last.getString("data"), r.data());
    assertEquals(last.keySet(), r.keys());
  }

  @Test
  @SuppressWarnings("deprecation")
  public void parcelRoundTripKeepsTypesAndRejectsUnparcelableValues() {
    Bundle b = new Bundle();
    b.putString("s", "text");
    b.putInt("i", 7);
    b.putBoolean("z", true);
    Bundle copy = CetpTransport.roundTrip(b);
    assertNotSame(b, copy);
    assertEquals("text", copy.get("s"));
    assertEquals(Integer.valueOf(7), copy.get("i"));
    assertEquals(Boolean.TRUE, copy.get("z"));

    Bundle bad = new Bundle();
    bad.putParcelable("p", new Unwritable());
    assertThrows(IllegalStateException.class, () -> CetpTransport.roundTrip(bad));
  }

  @Test
  public void callingUidPackagesAndSignerReachTheProvider() throws Exception {
    JSONObject who = agent.call("whoami", "{}", "r-1").jsonObject();
    assertEquals(AGENT_UID, who.getInt("calling_uid"));
    assertEquals(List.of("com.example.agent"), strings(who.getJSONArray("packages")));
    assertEquals(
        List.of(agent.certificateSha256()),
        strings(who.getJSONObject("signers").getJSONArray("com.example.agent")));
    assertEquals("r-1", who.getString("request_id"));

    // Shared UID: a second package joins the first.
    byte[] otherCert = "other-cert".getBytes(StandardCharsets.UTF_8);
    Agent helper = cetp.agent("com.example.agent.helper", null, AGENT_UID, otherCert);
    who = agent.call("whoami", "{}").jsonObject();
    assertEquals(
        List.of("com.example.agent", "com.example.agent.helper"),
        strings(who.getJSONArray("packages")));
    assertEquals(
        List.of(helper.certificateSha256()),
        strings(who.getJSONObject("signers").getJSONArray("com.example.agent.helper")));
  }

  @Test
  public void callingUidDefaultsToOwnUidAndCallersAsRestoresIt() throws Exception {
    assertTrue(Process.myUid() != AGENT_UID);
    assertEquals(Process.myUid(), whoamiUid(CallForm.AUTHORITY));
    int inside = Callers.as(AGENT_UID, () -> whoamiUid(CallForm.AUTHORITY));
    assertEquals(AGENT_UID, inside);
    assertEquals(Process.myUid(), whoamiUid(CallForm.URI));
  }

  @Test
  public void errorRepliesCarryCodeMessageHintAndIntent() {
    ToolReply auth = agent.call("needs_auth", "{}");
    assertTrue(!auth.isSuccess());
    assertEquals("error", auth.status());
    assertEquals("AUTH_REQUIRED", auth.errorCode());
    assertTrue(auth.errorMessage().length() > 0);
    assertTrue(auth.resolutionHint().length() > 0);
    assertEquals("dev.cetp.fixture.action.AUTHORIZE", auth.authorizeIntent());

    assertEquals("TOOL_NOT_FOUND", agent.call("nope", "{}").errorCode());
    assertEquals("INVALID_ARGUMENTS", agent.call("echo", "[1]").errorCode());
    assertEquals(
        "METHOD_NOT_FOUND", agent.request(CallForm.URI, "frobnicate", new Bundle()).errorCode());
  }

  @Test
  public void sixteenConcurrentCallersEachGetTheirOwnAnswer() throws Exception {
    // Every thread calls as the same agent (Robolectric keeps one calling UID for all threads).
    int threads = 16;
    int callsPerThread = 25;
    CyclicBarrier start = new CyclicBarrier(threads);
    pool = Executors.newFixedThreadPool(threads);
    List<Future<Integer>> results = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      final int thread = t;
      Callable<Integer> caller =
          () -> {
            start.await();
            int ok = 0;
            for (int i = 0; i < callsPerThread; i++) {
              CallForm form = (i % 2 == 0) ? CallForm.AUTHORITY : CallForm.URI;
              String requestId = "t" + thread + "-c" + i;
              String text = "payload " + thread + "/" + i;
              ToolReply r =
                  agent.request(
                      form,
                      CetpV2.METHOD_EXECUTE_TOOL,
                      execExtras(
                          "echo", new JSONObject().put("text", text).toString(), requestId));
              assertTrue(r.toString(), r.isSuccess());
              JSONObject data = r.jsonObject();
              assertEquals(requestId, data.getString("request_id"));
              assertEquals(text, data.getJSONObject("args").getString("text"));
              assertEquals(AGENT_UID, data.getInt("calling_uid"));
              ok++;
            }
            return ok;
          };
      results.add(pool.submit(caller));
    }
    int total = 0;
    for (Future<Integer> f : results) {
      total += f.get(2, TimeUnit.MINUTES); // hang guard only; rethrows a thread's failure
    }
    assertEquals(threads * callsPerThread, total);
  }

  /** {@code whoami} through the kit's transport, from whatever UID calls now. */
  private static int whoamiUid(CallForm form) throws Exception {
    return new CetpTransport()
        .call(form, AUTHORITY, CetpV2.METHOD_EXECUTE_TOOL, execExtras("whoami", "{}", null))
        .jsonObject()
        .getInt("calling_uid");
  }

  private static Bundle execExtras(String tool, String args, String requestId) {
    Bundle b = new Bundle();
    b.putString(CetpV2.EXTRA_TOOL_NAME, tool);
    b.putString(CetpV2.EXTRA_ARGS, args);
    if (requestId != null) {
      b.putString(CetpV2.EXTRA_REQUEST_ID, requestId);
    }
    return b;
  }

  private static List<String> strings(JSONArray a) throws Exception {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < a.length(); i++) {
      out.add(a.getString(i));
    }
    return out;
  }

  /** A Parcelable whose writeToParcel fails, to prove the round trip really parcels. */
  private static final class Unwritable implements Parcelable {
    @Override
    public int describeContents() {
      return 0;
    }

    @Override
    public void writeToParcel(Parcel dest, int flags) {
      throw new IllegalStateException("cannot be parcelled");
    }
  }
}
