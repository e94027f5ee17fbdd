package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import android.app.Activity;
import dev.cetp.e2e.category.NotesBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.CetpV2;
import dev.cetp.testkit.ConsentDialog;
import dev.cetp.testkit.V2Reply;
import dev.cetp.testkit.V2Session;
import java.util.List;
import java.util.UUID;
import org.json.JSONObject;
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;

/**
 * The notes sample's long-running {@code find_text} as a CETP v2 agent with {@code
 * async_operations} and {@code cancellation} calls it, through the kit's public API. The sample
 * runs its operations with the SDK's defaults (a 1 s inline window on the real clock) and
 * searches 320 notes, so whether a call answers in its reply or as an operation is the
 * machine's to decide: every test here holds whichever it is. The paths one by one, each
 * brought about by the test, are in {@link FixtureOperationsE2ETest}. Runs in {@code
 * bundle-notes}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(NotesBundle.class)
public class NotesOperationsE2ETest {
  private static final String ARGS = "{\"text\":\"a\",\"limit\":3}";

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  /** An agent the user allowed to read notes (find_text's scope), through the resolution. */
  private Agent allowed(String packageName) throws Exception {
    Agent agent = cetp.agent(packageName);
    V2Session session = agent.v2();
    V2Reply refused = session.call("get_note", "{\"id\":7}").assertError(CetpV2.AUTH_REQUIRED);
    try (ConsentDialog dialog = session.openResolution(refused)) {
      dialog.allow();
      assertEquals(Activity.RESULT_OK, dialog.resultCode());
    }
    session.resume(refused).assertSuccess();
    return agent;
  }

  private static V2Session both(Agent agent) {
    return agent.v2(CetpV2.CAPABILITY_ASYNC_OPERATIONS, CetpV2.CAPABILITY_CANCELLATION);
  }

  @Test
  public void findTextPassesTheKitsOperationChecks() throws Exception {
    V2Session session = both(allowed("com.example.agent"));
    assertEquals(List.of(), session.operationProblems("find_text", ARGS));
    session.assertOperationsConformant("find_text", "{\"text\":\"basil\",\"limit\":2}");
  }

  /** The checks need an agent the user allowed: they say so rather than pass. */
  @Test
  public void theChecksSayWhenTheAgentMayNotCallTheTool() {
    List<String> problems =
        both(cetp.agent("com.example.agent")).operationProblems("find_text", ARGS);
    assertEquals(problems.toString(), 1, problems.size());
    assertTrue(problems.get(0), problems.get(0).contains(CetpV2.AUTH_REQUIRED));
  }

  /** Its outcome, in the reply or as an operation polled to its end, is the v1 agent's result. */
  @Test
  public void findTextEndsWithTheResultOfASynchronousCall() throws Exception {
    Agent agent = allowed("com.example.agent");
    V2Session session = both(agent);
    V2Reply reply = session.call("find_text", ARGS);
    Object value =
        reply.isAccepted()
            ? session.awaitOperation(reply).assertState(CetpV2.STATE_SUCCEEDED).operationValue()
            : reply.assertSuccess().value();
    JSONObject sync = agent.call("find_text", ARGS).assertSuccess().jsonObject();
    assertEquals(sync.toString(), value.toString());
    assertEquals(3, sync.getJSONArray("notes").length());
  }

  /**
   * A cancellation racing the search's end: an acknowledged one ends {@code cancelled} without
   * a result, a {@code CONFLICT} ends {@code succeeded} with it, never both and never another
   * error.
   */
  @Test
  public void aCancellationRacingFindTextGivesOneOutcome() throws Exception {
    V2Session session = both(allowed("com.example.agent"));
    for (int round = 0; round < 8; round++) {
      V2Reply reply = session.call("find_text", "{\"text\":\"zzqqxx-no-such-text\"}");
      if (!reply.isAccepted()) {
        assertEquals(0, ((JSONObject) reply.assertSuccess().value()).getJSONArray("notes").length());
        continue;
      }
      V2Reply asked = session.cancelOperation(reply.operationId());
      V2Reply end = session.awaitOperation(reply);
      if (asked.isSuccess()) {
        asked.assertState(CetpV2.STATE_CANCELLATION_REQUESTED);
        end.assertState(CetpV2.STATE_CANCELLED);
        assertNull(end.toString(), end.operationResult());
      } else {
        asked.assertError(CetpV2.CONFLICT);
        JSONObject found = (JSONObject) end.assertState(CetpV2.STATE_SUCCEEDED).operationValue();
        assertEquals(found.getLong("total"), found.getLong("read"));
      }
      assertEquals(end.state(), session.getOperation(reply.operationId()).state());
    }
  }

  @Test
  public void anotherAppAskingForAnIdLearnsNothing() throws Exception {
    V2Session mine = both(allowed("com.example.agent"));
    V2Reply reply = mine.call("find_text", ARGS);
    V2Session theirs = both(cetp.agent("com.example.other"));
    String requestId = reply.requestId();
    String never = "op_" + UUID.randomUUID().toString().replace("-", "");
    V2Reply unknown = theirs.getOperation(requestId, never).assertError(CetpV2.RESULT_EXPIRED);
    if (reply.isAccepted()) {
      V2Reply guessed =
          theirs.getOperation(requestId, reply.operationId()).assertError(CetpV2.RESULT_EXPIRED);
      assertEquals(unknown.errorMessage(), guessed.errorMessage());
      assertEquals(unknown.keys(), guessed.keys());
      mine.awaitOperation(reply).assertState(CetpV2.STATE_SUCCEEDED);
    }
  }

  @Test
  public void theKitSendsNoOperationMethodTheSessionLacks() throws Exception {
    Agent agent = allowed("com.example.agent");
    V2Session plain = agent.v2();
    assertThrows(IllegalStateException.class, () -> plain.getOperation("op_1"));
    assertThrows(
        IllegalStateException.class,
        () -> agent.v2(CetpV2.CAPABILITY_ASYNC_OPERATIONS).cancelOperation("op_1"));
    // Without async_operations find_text answers in its reply, whatever it takes.
    V2Reply reply = plain.call("find_text", ARGS).assertSuccess();
    assertTrue(reply.toString(), reply.value() instanceof JSONObject);
  }
}
