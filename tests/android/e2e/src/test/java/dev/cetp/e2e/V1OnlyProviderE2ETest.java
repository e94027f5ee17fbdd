package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import android.os.Bundle;
import dev.cetp.e2e.category.V1OnlyProviderBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.CetpV2;
import dev.cetp.testkit.V2Reply;
import java.util.List;
import java.util.UUID;
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;

/**
 * An app built with CETP v2 turned off ({@code tests/v1-only-provider}, whose {@code
 * gradle.properties} says {@code cetp.v2=false}): its manifest advertises no 2, so ClawSeed's
 * newest client speaks v1 to it, and whatever a v2 agent sends is answered in CETP v1.
 */
@RunWith(RobolectricTestRunner.class)
@Category(V1OnlyProviderBundle.class)
public class V1OnlyProviderE2ETest {
  @Rule public final CetpTestRule cetp = new CetpTestRule();

  @Test
  public void theManifestAdvertisesVersionOneAlone() {
    Bundle meta = cetp.discoveryMetaData();
    String versions = meta.getString(CetpV2.META_VERSIONS);
    assertTrue(String.valueOf(versions), versions == null || !versions.contains("2"));
    assertEquals(1, meta.getInt(CetpV2.META_VERSION, -1));
    assertEquals(List.of(1), cetp.advertisedVersions());
    AssertionError refused =
        assertThrows(AssertionError.class, () -> cetp.agent("com.example.agent").v2());
    assertTrue(refused.getMessage(), refused.getMessage().contains("does not advertise CETP v2"));
  }

  @Test
  public void negotiateGetsTheV1Answer() {
    V2Reply reply = cetp.agent("com.example.agent").negotiate(new int[] {2, 1}, "[]");
    assertTrue(reply.toString(), reply.isV1());
    assertEquals(reply.toString(), "error", reply.status());
    assertEquals(reply.toString(), CetpV2.TOOL_NOT_FOUND, reply.errorCode());
    assertNull(reply.toString(), reply.retryable());
  }

  @Test
  public void v2CallsAreAnsweredInV1() throws Exception {
    Agent agent = cetp.agent("com.example.agent");
    Bundle extras = new Bundle();
    extras.putInt(CetpV2.EXTRA_PROTOCOL_VERSION, 2);
    extras.putString(CetpV2.EXTRA_SESSION_TOKEN, "none");
    extras.putString(CetpV2.EXTRA_REQUEST_ID, UUID.randomUUID().toString());
    extras.putLong(CetpV2.EXTRA_DEADLINE_AT_MS, System.currentTimeMillis() + 30_000);
    assertEquals(List.of("ping"), agent.toolNames());
    V2Reply tools = agent.send(CetpV2.METHOD_LIST_TOOLS, extras);
    assertTrue(tools.toString(), tools.isV1() && tools.isSuccess());
    extras.putString(CetpV2.EXTRA_TOOL_NAME, "ping");
    extras.putString(CetpV2.EXTRA_ARGS, "{}");
    V2Reply call = agent.send(CetpV2.METHOD_EXECUTE_TOOL, extras);
    assertTrue(call.toString(), call.isV1());
    assertEquals(call.toString(), CetpV2.AUTH_REQUIRED, call.errorCode());
    assertEquals("dev.cetp.v1only.CETP_AUTHORIZE", agent.call("ping", "{}").authorizeIntent());
  }
}
