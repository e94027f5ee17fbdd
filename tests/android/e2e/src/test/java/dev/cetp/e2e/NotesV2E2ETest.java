package dev.cetp.e2e;

import dev.cetp.e2e.category.NotesBundle;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;

/** {@link V2AgentSuite} against the notes sample ({@code get_note}). Runs in {@code bundle-notes}. */
@RunWith(RobolectricTestRunner.class)
@Category(NotesBundle.class)
public class NotesV2E2ETest extends V2AgentSuite {
  @Override
  protected String packageName() {
    return "dev.cetp.samples.notes";
  }

  @Override
  protected String tool() {
    return "get_note";
  }

  @Override
  protected String args() {
    return "{\"id\":7}";
  }

  @Override
  protected String otherArgs() {
    return "{\"id\":42}";
  }

  @Override
  protected String invalidArgs() {
    return "{\"id\":\"seven\"}";
  }
}
