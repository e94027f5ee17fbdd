package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;

import android.os.Build;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.annotation.Config;

/**
 * Every test of {@link NotesSampleE2ETest} on Android 16 (SDK 36), the API level apps target on
 * Google Play: the framework the template's Java, the notes sample's provider and the agent
 * meet there. Runs in {@code bundle-notes-android16}.
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = 36)
@Category(Android16.class)
public class NotesSampleAndroid16E2ETest extends NotesSampleE2ETest {
  @Test
  public void theFrameworkIsAndroid16() {
    assertEquals(36, Build.VERSION.SDK_INT);
  }
}
