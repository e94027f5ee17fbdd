package dev.cetp.e2e;

import static dev.cetp.e2e.FixtureProviderE2ETest.AUTHORITY;
import static dev.cetp.e2e.FixtureProviderE2ETest.assertError;
import static dev.cetp.e2e.FixtureProviderE2ETest.exec;

import android.content.pm.ProviderInfo;
import android.os.Bundle;
import dev.cetp.testkit.internal.CetpTransport;
import dev.cetp.testkit.CallForm;
import dev.cetp.testkit.internal.HostBundle;
import dev.cetp.testkit.internal.ManifestInstaller;
import dev.cetp.e2e.category.FixtureProviderBundle;
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
 * CetpRuntime}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(FixtureProviderBundle.class)
public class MissingLibraryTest {
  private static final String LIBRARY_KEY = "dev.cetp.library";

  private CetpTransport startWithLibrary(String library) {
    ManifestInstaller.Installed app = HostBundle.current().install();
    ProviderInfo info = app.providerInfo(AUTHORITY);
    info.metaData.putString(LIBRARY_KEY, library);
    app.startProvider(info);
    return new CetpTransport();
  }

  @Test
  public void aMissingNativeLibraryAnswersInternalError() {
    CetpTransport consumer = startWithLibrary("cetp_no_such_library");
    for (CallForm form : CallForm.values()) {
      assertError(
          consumer.call(form, AUTHORITY, CetpTransport.METHOD_LIST_TOOLS, new Bundle()),
          "INTERNAL_ERROR",
          "libcetp_no_such_library.so could not be loaded");
      assertError(
          consumer.call(form, AUTHORITY, CetpTransport.METHOD_EXECUTE_TOOL, exec("echo", "{}", null)),
          "INTERNAL_ERROR",
          "bug in the provider app");
      assertError(
          consumer.call(form, AUTHORITY, CetpTransport.METHOD_GET_PROVIDER_INFO, null),
          "INTERNAL_ERROR",
          "cetp_no_such_library");
    }
  }

  /** An empty entry (the placeholder set to nothing): the provider's own entry is what counts. */
  @Test
  public void anEmptyLibraryMetaDataEntryAnswersInternalError() {
    CetpTransport consumer = startWithLibrary("");
    assertError(consumer.listTools(AUTHORITY), "INTERNAL_ERROR", LIBRARY_KEY);
  }
}
