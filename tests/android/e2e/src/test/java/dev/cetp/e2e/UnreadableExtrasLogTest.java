package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import android.net.Uri;
import android.os.Bundle;
import android.os.Parcel;
import dev.cetp.e2e.category.FixtureProviderBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.CetpTestRule;
// Internal: extras no Parcel round trip can carry, sent around the kit's transport from the agent.
import dev.cetp.testkit.internal.Callers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.shadows.ShadowLog;

/**
 * A call whose extras cannot be unparcelled: the provider answers it as if the CETP keys were
 * absent, and what it logs holds nothing the caller chose, however often the caller sends it.
 *
 * <p>The extras hold a styled text (read at once when the Bundle is first read, unlike a
 * Parcelable value) whose span carries a Parcelable of a class the provider's process does not
 * have, named by the caller: the platform's {@code BadParcelableException} repeats that name.
 */
@RunWith(RobolectricTestRunner.class)
@Category(FixtureProviderBundle.class)
public class UnreadableExtrasLogTest {
  private static final int CALLER = 10_200;

  /** The class name the caller chooses (no such class exists). */
  private static final String CHOSEN = "com.example.CallerChosenNameXYZZY";

  // From the platform's Parcel and TextUtils formats.
  private static final int BUNDLE_MAGIC = 0x4C444E42; // 'BNDL'
  private static final int VAL_CHARSEQUENCE = 10;
  private static final int EASY_EDIT_SPAN = 22;

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  @Before
  public void setUp() {
    Agent agent =
        cetp.agent("com.example.agent", null, CALLER, "agent key".getBytes(StandardCharsets.UTF_8));
    // The extras cannot go through the agent's calls, which parcel them first (and fail to read
    // them back): the test calls the resolver itself, from the agent's UID.
    Callers.setCallingUid(agent.uid());
  }

  /**
   * Extras as they arrive from another process, unread: {@code args} is a styled text whose
   * {@code EasyEditSpan} holds a Parcelable of class {@link #CHOSEN} (written as {@code
   * Bundle.writeToParcel} and {@code TextUtils.writeToParcel} write them).
   */
  private static Bundle unreadableExtras() {
    Parcel parcel = Parcel.obtain();
    try {
      int lengthAt = parcel.dataPosition();
      parcel.writeInt(-1);
      parcel.writeInt(BUNDLE_MAGIC);
      int start = parcel.dataPosition();
      parcel.writeInt(1); // one key
      parcel.writeString("args");
      parcel.writeInt(VAL_CHARSEQUENCE);
      parcel.writeInt(0); // spanned
      parcel.writeString8("x");
      parcel.writeInt(EASY_EDIT_SPAN);
      parcel.writeString(CHOSEN); // the span's PendingIntent, as a Parcelable of this class
      parcel.writeInt(0);
      parcel.writeInt(1);
      parcel.writeInt(0);
      parcel.writeInt(0); // no more spans
      int end = parcel.dataPosition();
      parcel.setDataPosition(lengthAt);
      parcel.writeInt(end - start);
      parcel.setDataPosition(0);
      return parcel.readBundle(UnreadableExtrasLogTest.class.getClassLoader());
    } finally {
      parcel.recycle();
    }
  }

  @Test
  public void unreadableExtrasAreAnsweredAndLoggedWithoutTheCallersText() {
    // The platform's error names the caller's class.
    RuntimeException unread =
        assertThrows(RuntimeException.class, () -> unreadableExtras().getString("tool_name"));
    assertTrue(String.valueOf(unread), String.valueOf(unread).contains(CHOSEN));
    ShadowLog.clear();
    Uri provider = Uri.parse("content://" + FixtureProviderE2ETest.AUTHORITY);
    for (int i = 0; i < 5; i++) {
      Bundle reply =
          cetp.context()
              .getContentResolver()
              .call(provider, "execute_tool", null, unreadableExtras());
      assertEquals(String.valueOf(reply), "INVALID_ARGS", reply.getString("error_code"));
    }
    // What the SDK logs (its tag; the platform's own Parcel class logs the name itself).
    List<String> lines = new ArrayList<>();
    for (ShadowLog.LogItem item : ShadowLog.getLogsForTag("cetp")) {
      lines.add(item.msg + (item.throwable == null ? "" : " " + item.throwable));
    }
    assertFalse(String.join("\n", lines), String.join("\n", lines).contains("XYZZY"));
    long said = lines.stream().filter(line -> line.contains("extras could not be read")).count();
    assertEquals(String.join("\n", lines), 1, said);
  }
}
