package dev.cetp.e2e;

import static dev.cetp.e2e.FixtureProviderE2ETest.AUTHORITY;
import static dev.cetp.e2e.FixtureProviderE2ETest.assertError;
import static dev.cetp.e2e.FixtureProviderE2ETest.exec;

import android.content.pm.ProviderInfo;
import android.os.Bundle;
import dev.cetp.harness.CetpConsumer;
import dev.cetp.harness.CetpConsumer.CallForm;
import dev.cetp.harness.HostBundle;
import dev.cetp.harness.ManifestInstaller;
import dev.cetp.harness.category.FixtureProviderBundle;
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

  private CetpConsumer startWithLibrary(String library) {
    ManifestInstaller.Installed app = HostBundle.current().install();
    ProviderInfo info = app.providerInfo(AUTHORITY);
    info.metaData.putString(LIBRARY_KEY, library);
    app.startProvider(info);
    return new CetpConsumer();
  }

  @Test
  public void aMissingNativeLibraryAnswersInternalError() {
    CetpConsumer consumer = startWithLibrary("cetp_no_such_library");
    for (CallForm form : CallForm.values()) {
      assertError(
          consumer.call(form, AUTHORITY, CetpConsumer.METHOD_LIST_TOOLS, new Bundle()),
          "INTERNAL_ERROR",
          "libcetp_no_such_library.so could not be loaded");
      assertError(
          consumer.call(form, AUTHORITY, CetpConsumer.METHOD_EXECUTE_TOOL, exec("echo", "{}", null)),
          "INTERNAL_ERROR",
          "bug in the provider app");
      assertError(
          consumer.call(form, AUTHORITY, CetpConsumer.METHOD_GET_PROVIDER_INFO, null),
          "INTERNAL_ERROR",
          "cetp_no_such_library");
    }
  }

  /** An empty entry (the placeholder set to nothing): the provider's own entry is what counts. */
  @Test
  public void anEmptyLibraryMetaDataEntryAnswersInternalError() {
    CetpConsumer consumer = startWithLibrary("");
    assertError(consumer.listTools(AUTHORITY), "INTERNAL_ERROR", LIBRARY_KEY);
  }
}
