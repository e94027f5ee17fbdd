package dev.cetp.e2e;

import static dev.cetp.e2e.FixtureProviderE2ETest.AUTHORITY;
import static dev.cetp.e2e.FixtureProviderE2ETest.assertError;
import static dev.cetp.e2e.FixtureProviderE2ETest.exec;

import android.content.pm.ProviderInfo;
import android.os.Bundle;
import dev.cetp.e2e.category.FixtureProviderBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.CallForm;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.CetpV2;
// Internal: the provider started again from an altered manifest entry, which no app's test does.
import dev.cetp.testkit.internal.HostBundle;
import dev.cetp.testkit.internal.ManifestInstaller;
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;

/**
 * The template's provider when its native library cannot be used: every call, in both forms,
 * answers a well-formed INTERNAL_ERROR naming the cause, instead of crashing or returning null.
 *
 * <p>Order-independent within the fork: each test is a new app, which starts the runtime afresh,
 * and a library name that differs from the loaded one is always tried (and fails) by {@code
 * CetpRuntime}. The provider the rule started is created again with the altered meta-data before
 * any call: the last one created names the library the first call loads.
 */
@RunWith(RobolectricTestRunner.class)
@Category(FixtureProviderBundle.class)
public class MissingLibraryTest {
  private static final String LIBRARY_KEY = "dev.cetp.library";

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  /** Starts the provider with {@code library} as its library; returns an agent to call it. */
  private Agent startWithLibrary(String library) {
    ManifestInstaller.Installed app = HostBundle.current().install();
    ProviderInfo info = app.providerInfo(AUTHORITY);
    info.metaData.putString(LIBRARY_KEY, library);
    app.startProvider(info);
    return cetp.agent("com.example.agent");
  }

  @Test
  public void aMissingNativeLibraryAnswersInternalError() {
    Agent agent = startWithLibrary("cetp_no_such_library");
    for (CallForm form : CallForm.values()) {
      assertError(
          agent.request(form, CetpV2.METHOD_LIST_TOOLS, new Bundle()),
          "INTERNAL_ERROR",
          "libcetp_no_such_library.so could not be loaded");
      assertError(
          agent.request(form, CetpV2.METHOD_EXECUTE_TOOL, exec("echo", "{}", null)),
          "INTERNAL_ERROR",
          "bug in the provider app");
      assertError(
          agent.request(form, CetpV2.METHOD_GET_PROVIDER_INFO, null),
          "INTERNAL_ERROR",
          "cetp_no_such_library");
    }
  }

  /** An empty entry (the placeholder set to nothing): the provider's own entry is what counts. */
  @Test
  public void anEmptyLibraryMetaDataEntryAnswersInternalError() {
    Agent agent = startWithLibrary("");
    assertError(agent.listTools(), "INTERNAL_ERROR", LIBRARY_KEY);
  }
}
