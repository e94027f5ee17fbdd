package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import dev.cetp.testkit.Agent;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.ToolReply;
// Internal: admin state asserted on, the bundle's own wiring, an old v1 client's reading.
import dev.cetp.testkit.internal.ConsentAdmin;
import dev.cetp.testkit.internal.HostBundle;
import dev.cetp.testkit.internal.ManifestInstaller;
import dev.cetp.testkit.internal.V1ClientRules;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;

/**
 * What the sample suites ({@link MinimalSampleE2ETest}, {@link NotesSampleE2ETest}, {@link
 * ExpensesSampleE2ETest}) share: the kit's rule (the current host bundle installed with its
 * providers started before every test), one agent app installed and calling, a check that the
 * approval store is open and empty; calls from that agent; and static reply helpers.
 *
 * <p>The concrete classes keep {@code @RunWith} and their bundle {@code @Category}. JUnit 4 runs
 * the rule before any {@code @Before}, and this class's {@code @Before} before a subclass's own
 * {@code @Before} (which must have another name, or it would hide this one). Surefire does not
 * pick this class up itself: its name does not match the default includes, and it is abstract.
 * It is public so that JUnit reaches the inherited {@code @Before} method without visibility
 * bridges.
 */
public abstract class SampleSuite {
  static final int AGENT_UID = 10_123;
  static final String AGENT = "com.example.agent";
  static final byte[] AGENT_CERT = "agent-signing-cert".getBytes(StandardCharsets.UTF_8);

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  /** {@link #AGENT}, labelled with its package, not approved yet. */
  protected Agent agent;

  @Before
  public void startSample() throws Exception {
    agent = cetp.agent(AGENT, null, AGENT_UID, AGENT_CERT);
    // Every test starts from a provider bound to this test's own, empty files dir.
    JSONObject state = ConsentAdmin.state();
    assertTrue(state.toString(), state.getBoolean("store_open"));
    assertEquals(state.toString(), 0, state.getJSONArray("pending").length());
    assertEquals(state.toString(), 0, state.getJSONArray("grants").length());
  }

  /**
   * The SDK's additive tool fields ({@code title}, {@code annotations}, {@code output_schema}) do
   * not cost a CETP v1 agent anything: read leniently, the answer still yields every tool,
   * named, described and with an object schema, under a function name an LLM API accepts.
   */
  @Test
  public void aLenientV1AgentStillSeesEveryTool() throws Exception {
    ToolReply r = agent.listTools();
    assertTrue(r.toString(), r.isSuccess());
    JSONArray entries = r.tools();
    List<String> advertised = new ArrayList<>();
    for (int i = 0; i < entries.length(); i++) {
      JSONObject entry = entries.getJSONObject(i);
      advertised.add(entry.getString("name"));
      V1ClientRules.assertToolFields(entry);
    }
    List<V1ClientRules.Tool> seen = V1ClientRules.parse(r.data());
    assertFalse("a provider without tools is skipped", seen.isEmpty());
    List<String> names = new ArrayList<>();
    for (V1ClientRules.Tool tool : seen) {
      names.add(tool.name);
      assertFalse(tool.name, tool.description.trim().isEmpty());
      assertEquals(tool.name, "object", tool.parameters.getString("type"));
      assertTrue(tool.name, tool.parameters.getJSONObject("properties") != null);
      String function = V1ClientRules.namespaced(cetp.packageName(), tool.name);
      assertTrue(function, V1ClientRules.isLlmFunctionName(function));
    }
    assertEquals(advertised, names);
  }

  /** The host bundle under test ({@code -Dcetp.bundle}), the one the rule installed. */
  static HostBundle bundle() {
    return HostBundle.current();
  }

  /** The bundle's merged manifest as the rule's installer parses it. */
  static ManifestInstaller.Parsed manifest() {
    return ManifestInstaller.parse(bundle().manifest());
  }

  /** {@code execute_tool} from the agent, without a request id. */
  protected ToolReply run(String tool, String args) {
    return agent.call(tool, args);
  }

  /** {@link #run} that must succeed; returns the raw JSON text of {@code data}. */
  protected String data(String tool, String args) {
    return succeeded(tool, args).data();
  }

  /** {@link #run} that must succeed; returns {@code data} parsed ({@link ToolReply#json}). */
  protected Object dataValue(String tool, String args) {
    return succeeded(tool, args).json();
  }

  private ToolReply succeeded(String tool, String args) {
    ToolReply r = run(tool, args);
    assertTrue(tool + " " + args + ": " + r, r.isSuccess());
    return r;
  }

  // ----------------------------------------------------------------------------------------

  /** An error reply: the code, a non-empty message containing every {@code mentions}, no data. */
  static void assertError(ToolReply r, String code, String... mentions) {
    assertFalse("provider returned null", r.isNull());
    assertEquals(r.toString(), "error", r.status());
    assertEquals(r.toString(), code, r.errorCode());
    assertNotNull(r.toString(), r.errorMessage());
    assertFalse(r.toString(), r.errorMessage().isEmpty());
    assertNull(r.toString(), r.data());
    for (String m : mentions) {
      assertTrue(r.errorMessage() + " should mention " + m, r.errorMessage().contains(m));
    }
  }

  static List<String> keys(JSONObject o) {
    List<String> out = new ArrayList<>();
    o.keys().forEachRemaining(out::add);
    return out;
  }

  static List<String> sorted(List<String> list) {
    List<String> out = new ArrayList<>(list);
    out.sort(null);
    return out;
  }

  static List<String> strings(JSONArray a) throws Exception {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < a.length(); i++) {
      out.add(a.getString(i));
    }
    return out;
  }
}
