package dev.cetp.e2e;

import dev.cetp.e2e.category.MinimalBundle;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;

/** {@link V2AgentSuite} against the minimal sample ({@code greet}). Runs in {@code bundle-minimal}. */
@RunWith(RobolectricTestRunner.class)
@Category(MinimalBundle.class)
public class MinimalV2E2ETest extends V2AgentSuite {
  @Override
  protected String packageName() {
    return "dev.cetp.samples.minimal";
  }

  @Override
  protected String tool() {
    return "greet";
  }

  @Override
  protected String args() {
    return "{\"name\":\"Ada\"}";
  }

  @Override
  protected String otherArgs() {
    return "{\"name\":\"Grace\"}";
  }

  @Override
  protected String invalidArgs() {
    return "{}";
  }
}
