package dev.cetp.e2e;

import dev.cetp.e2e.category.ExpensesBundle;
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
}
