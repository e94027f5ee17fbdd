package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import android.net.Uri;
import android.os.Bundle;
import android.os.ParcelFileDescriptor;
import dev.cetp.e2e.category.ExpensesBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.CetpV2;
import dev.cetp.testkit.V2Reply;
import dev.cetp.testkit.V2Session;
import dev.cetp.testkit.internal.Callers;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;

/** {@link V2AgentSuite} against the expenses sample ({@code spending_by_category}). Runs in {@code bundle-expenses}. */
@RunWith(RobolectricTestRunner.class)
@Category(ExpensesBundle.class)
public class ExpensesV2E2ETest extends V2AgentSuite {
  @Override
  protected String packageName() {
    return "dev.cetp.samples.expenses";
  }

  @Override
  protected String tool() {
    return "spending_by_category";
  }

  @Override
  protected String args() {
    return "{\"range\":{\"from\":\"2025-03-01\",\"to\":\"2025-03-31\"}}";
  }

  @Override
  protected String otherArgs() {
    return "{\"range\":{\"from\":\"2025-01-01\",\"to\":\"2025-12-31\"}}";
  }

  @Override
  protected String invalidArgs() {
    return "{\"range\":{\"from\":\"2025-03-31\",\"to\":\"2025-03-01\"}}";
  }

  private static final String TWO_YEARS =
      "{\"range\":{\"from\":\"2024-01-01\",\"to\":\"2025-12-31\"}}";

  /**
   * Two years of expenses with their line items are over the 256 KiB a reply carries: with
   * {@code large_results} they come as a read-only descriptor of the announced size and digest
   * (the kit checks it as the client does), without it as {@code RESULT_TOO_LARGE}.
   */
  @Test
  public void aTwoYearExportComesAsALargeResultOnlyWhenNegotiated() throws Exception {
    Agent agent = cetp.agent("com.example.agent");
    V2Session session = approved(agent);
    session.call("export_expenses", TWO_YEARS).assertError(CetpV2.RESULT_TOO_LARGE);

    session.renegotiate(CetpV2.CAPABILITY_LARGE_RESULTS);
    V2Reply large = session.call("export_expenses", TWO_YEARS).assertSuccess();
    JSONObject data = large.jsonObject();
    assertEquals(CetpV2.RESULT_KIND_FILE, data.getString("kind"));
    assertTrue(data.getLong("size_bytes") > 256 * 1024);
    JSONArray lines = (JSONArray) large.value();
    assertTrue(lines.length() > 800);
    assertTrue(lines.getJSONObject(0).getJSONArray("items").length() > 0);
    assertEquals(
        "read once, kept by the kit", large.largeResultText(), large.largeResultText());

    JSONArray month = (JSONArray) session.call("export_expenses", args()).value();
    assertTrue("a month stays inline", month.length() > 0);
  }

  /**
   * The provider's own descriptor of a large result is closed by the Binder thread's next call
   * (its reply was written by then): the provider is called here without the kit's transport,
   * which would close it in Binder's place.
   */
  @Test
  public void theProvidersDescriptorIsClosedByTheThreadsNextCall() throws Exception {
    Agent agent = cetp.agent("com.example.agent");
    V2Session session = approved(agent).renegotiate(CetpV2.CAPABILITY_LARGE_RESULTS);
    Bundle extras = session.extras();
    extras.putString(CetpV2.EXTRA_TOOL_NAME, "export_expenses");
    extras.putString(CetpV2.EXTRA_ARGS, TWO_YEARS);
    Callers.setCallingUid(agent.uid());
    Bundle reply =
        cetp.context()
            .getContentResolver()
            .call(Uri.parse("content://" + cetp.authority()), CetpV2.METHOD_EXECUTE_TOOL, null, extras);
    ParcelFileDescriptor own = reply.getParcelable(CetpV2.KEY_RESULT_FD);
    assertTrue("open when the reply leaves", own.getFileDescriptor().valid());
    session.providerInfo().assertSuccess();
    assertThrows(IllegalStateException.class, own::getFd);
  }
}
