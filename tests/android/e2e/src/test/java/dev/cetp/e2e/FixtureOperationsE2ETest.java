package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import dev.cetp.e2e.category.FixtureProviderBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.CetpV2;
import dev.cetp.testkit.V2Reply;
import dev.cetp.testkit.V2Session;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;
import org.json.JSONObject;
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;

/**
 * CETP v2 operations end to end, through the kit's public API, on the Rust fixture provider's
 * {@code crawl} ({@code tests/fixture-provider}): a long-running tool that reports its progress
 * and then waits at a gate for each step, and that only the test opens (its tool {@code gate},
 * which also reports how far {@code crawl} got and whether it saw a cancellation). The fixture's
 * inline window is zero, so a {@code crawl} waiting at its gate is answered {@code accepted} at
 * once. Nothing here waits on time: each step is the test's, and every loop polls a condition
 * the test itself brought about. The notes sample's {@code find_text} goes through the same
 * paths in {@link NotesOperationsE2ETest}, where its speed decides which of them it takes.
 */
@RunWith(RobolectricTestRunner.class)
@Category(FixtureProviderBundle.class)
public class FixtureOperationsE2ETest {
  /** A failure bound for the loops below (never reached when the provider is right). */
  private static final long GIVE_UP_MS = 60_000;

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  private static V2Session both(Agent agent) {
    return agent.v2(CetpV2.CAPABILITY_ASYNC_OPERATIONS, CetpV2.CAPABILITY_CANCELLATION);
  }

  /** {@code gate}: lets {@code steps} more steps through, and says how far {@code crawl} got. */
  private static JSONObject gate(V2Session session, int steps) {
    return (JSONObject) session.call("gate", "{\"steps\":" + steps + "}").assertSuccess().value();
  }

  /** Asks the gate until {@code done} holds. */
  private static JSONObject gateUntil(V2Session session, Predicate<JSONObject> done) {
    long giveUp = System.currentTimeMillis() + GIVE_UP_MS;
    while (true) {
      JSONObject report = gate(session, 0);
      if (done.test(report)) {
        return report;
      }
      if (System.currentTimeMillis() > giveUp) {
        throw new AssertionError("the gate never reported what the test waits for: " + report);
      }
      Thread.yield();
    }
  }

  /** Polls {@code get_operation} until {@code done} holds. */
  private static V2Reply pollUntil(
      V2Session session, String requestId, String operationId, Predicate<V2Reply> done) {
    long giveUp = System.currentTimeMillis() + GIVE_UP_MS;
    while (true) {
      V2Reply reply = session.getOperation(requestId, operationId).assertSuccess();
      if (done.test(reply)) {
        return reply;
      }
      if (System.currentTimeMillis() > giveUp) {
        throw new AssertionError("the operation never got where the test waits: " + reply);
      }
      Thread.yield();
    }
  }

  /**
   * Until the operation reported step {@code step} and its tool waits at the gate for it (the
   * tests run one {@code crawl} at a time: progress {@code step} is reported only once the gate
   * let step {@code step - 1} through, and the next step only the test lets through).
   */
  private static V2Reply atStep(V2Session session, V2Reply accepted, long step) {
    V2Reply reply =
        pollUntil(
            session,
            accepted.requestId(),
            accepted.operationId(),
            r -> Long.valueOf(step).equals(r.progressCurrent()));
    gateUntil(session, r -> r.optBoolean("waiting"));
    return reply;
  }

  @Test
  public void anOperationIsAcceptedRunsWithProgressAndSucceeds() throws Exception {
    V2Session session = both(cetp.agent("com.example.agent"));
    V2Reply accepted = session.call("crawl", "{\"steps\":3}").assertAccepted();
    assertTrue(accepted.toString(), accepted.operationId().startsWith("op_"));
    long poll = accepted.pollAfterMs();
    assertTrue(accepted.toString(), poll >= 100 && poll <= 10_000);

    for (int step = 0; step < 3; step++) {
      V2Reply running = atStep(session, accepted, step).assertState(CetpV2.STATE_RUNNING);
      assertEquals(accepted.operationId(), running.operationId());
      assertEquals(Long.valueOf(3), running.progressTotal());
      assertEquals("Crawling", running.progressMessage());
      assertEquals(accepted.pollAfterMs(), running.pollAfterMs());
      assertNull(running.operationResult());
      gate(session, 1);
    }
    V2Reply done = session.awaitOperation(accepted).assertState(CetpV2.STATE_SUCCEEDED);
    assertEquals(3, done.operationValue());
    assertNull(done.operationError());
    assertNull("a finished operation has no progress", done.progressCurrent());
    // The outcome is kept: read again, the same.
    assertEquals(3, session.getOperation(accepted.operationId()).operationValue());
    JSONObject report = gate(session, 0);
    assertEquals(1, report.getInt("runs"));
    assertEquals(3, report.getInt("passed"));
    assertEquals(0, report.getInt("cancelled"));
  }

  @Test
  public void aCancelledOperationStopsTheToolAndEndsCancelled() throws Exception {
    V2Session session = both(cetp.agent("com.example.agent"));
    V2Reply accepted = session.call("crawl", "{\"steps\":3}").assertAccepted();
    atStep(session, accepted, 0).assertState(CetpV2.STATE_RUNNING);

    V2Reply asked =
        session
            .cancelOperation(accepted.operationId())
            .assertState(CetpV2.STATE_CANCELLATION_REQUESTED);
    assertEquals(accepted.operationId(), asked.operationId());
    assertEquals(accepted.requestId(), asked.requestId());

    V2Reply end = session.awaitOperation(accepted).assertState(CetpV2.STATE_CANCELLED);
    assertNull(end.operationResult());
    assertNull(end.operationError());
    // The tool itself saw the cancellation at its gate and stopped: no step passed.
    JSONObject report = gate(session, 0);
    assertEquals(report.toString(), 1, report.getInt("cancelled"));
    assertEquals(report.toString(), 0, report.getInt("passed"));
    assertEquals(report.toString(), false, report.getBoolean("waiting"));
    // Opening the gate now lets nothing through: nothing waits there.
    gate(session, 3);
    session.getOperation(accepted.operationId()).assertState(CetpV2.STATE_CANCELLED);
    assertEquals(0, gate(session, 0).getInt("passed"));
    // Cancelled again: it already is.
    session.cancelOperation(accepted.operationId()).assertState(CetpV2.STATE_CANCELLED);
  }

  /**
   * The last step's gate opens and the cancellation arrives at once, racing the tool's end:
   * whichever wins, the agent reads one consistent outcome. An acknowledged cancellation ends
   * {@code cancelled} without a result; a {@code CONFLICT} (it had finished) ends {@code
   * succeeded} with it. Then the order that does not race: a cancellation after the end is a
   * {@code CONFLICT} and the result stays (the other, a cancellation before the end, is {@link
   * #aCancelledOperationStopsTheToolAndEndsCancelled}).
   */
  @Test
  public void aCancellationRacingTheEndGivesOneOutcome() throws Exception {
    V2Session session = both(cetp.agent("com.example.agent"));
    for (int round = 0; round < 12; round++) {
      V2Reply accepted = session.call("crawl", "{\"steps\":1}").assertAccepted();
      atStep(session, accepted, 0);
      gate(session, 1);
      V2Reply asked = session.cancelOperation(accepted.operationId());
      V2Reply end = session.awaitOperation(accepted);
      if (asked.isSuccess()) {
        asked.assertState(CetpV2.STATE_CANCELLATION_REQUESTED);
        end.assertState(CetpV2.STATE_CANCELLED);
        assertNull(end.toString(), end.operationResult());
      } else {
        asked.assertError(CetpV2.CONFLICT);
        end.assertState(CetpV2.STATE_SUCCEEDED);
        assertEquals(1, end.operationValue());
      }
      // Read again, the same: never both outcomes.
      assertEquals(
          end.state(), session.getOperation(accepted.operationId()).assertSuccess().state());
    }

    V2Reply accepted = session.call("crawl", "{\"steps\":1}").assertAccepted();
    atStep(session, accepted, 0);
    gate(session, 1);
    session.awaitOperation(accepted).assertState(CetpV2.STATE_SUCCEEDED);
    session
        .cancelOperation(accepted.operationId())
        .assertError(CetpV2.CONFLICT)
        .assertMessageContains(CetpV2.METHOD_GET_OPERATION);
    assertEquals(1, session.getOperation(accepted.operationId()).operationValue());
  }

  /**
   * Another app (another UID) asking for the operation, or cancelling it, gets exactly what it
   * gets for an id never issued, and the operation goes on untouched.
   */
  @Test
  public void anotherAppsOperationIsAnUnknownId() throws Exception {
    V2Session mine = both(cetp.agent("com.example.agent"));
    V2Reply accepted = mine.call("crawl", "{\"steps\":1}").assertAccepted();
    atStep(mine, accepted, 0);

    V2Session theirs = both(cetp.agent("com.example.other"));
    String never = "op_" + UUID.randomUUID().toString().replace("-", "");
    for (String requestId : new String[] {accepted.requestId(), UUID.randomUUID().toString()}) {
      V2Reply guessed = theirs.getOperation(requestId, accepted.operationId());
      V2Reply unknown = theirs.getOperation(requestId, never);
      sameAnswer(guessed.assertError(CetpV2.RESULT_EXPIRED), unknown);
      V2Reply cancelGuessed = theirs.cancelOperation(requestId, accepted.operationId());
      V2Reply cancelUnknown = theirs.cancelOperation(requestId, never);
      sameAnswer(cancelGuessed.assertError(CetpV2.RESULT_EXPIRED), cancelUnknown);
    }
    // Their cancellation did nothing: the tool still waits at its gate, and ends as it would.
    mine.getOperation(accepted.operationId()).assertState(CetpV2.STATE_RUNNING);
    assertEquals(0, gate(mine, 0).getInt("cancelled"));
    gate(mine, 1);
    assertEquals(1, mine.awaitOperation(accepted).operationValue());
    sameAnswer(
        theirs.getOperation(accepted.requestId(), accepted.operationId()),
        theirs.getOperation(accepted.requestId(), never));
  }

  private static void sameAnswer(V2Reply guessed, V2Reply unknown) {
    assertEquals(unknown.toString(), unknown.status(), guessed.status());
    assertEquals(unknown.toString(), unknown.errorCode(), guessed.errorCode());
    assertEquals(unknown.toString(), unknown.errorMessage(), guessed.errorMessage());
    assertEquals(unknown.toString(), unknown.retryable(), guessed.retryable());
    assertEquals(unknown.toString(), unknown.keys(), guessed.keys());
  }

  /**
   * The agent's process ends while its operation runs; started again under the same UID, it
   * negotiates a new session and reads the outcome with the {@code request_id} and {@code
   * operation_id} it kept.
   */
  @Test
  public void anOperationOutlivesItsCallersSession() throws Exception {
    Agent agent = cetp.agent("com.example.agent");
    V2Session before = both(agent);
    V2Reply accepted = before.call("crawl", "{\"steps\":2}").assertAccepted();
    atStep(before, accepted, 0);
    String requestId = accepted.requestId();
    String operationId = accepted.operationId();
    String oldToken = before.sessionToken();

    V2Session after = both(agent);
    assertNotEquals(oldToken, after.sessionToken());
    V2Reply running = after.getOperation(requestId, operationId).assertState(CetpV2.STATE_RUNNING);
    assertEquals(Long.valueOf(0), running.progressCurrent());
    // The request id is part of the question: another one is refused.
    after
        .getOperation(UUID.randomUUID().toString(), operationId)
        .assertError(CetpV2.INVALID_REQUEST);
    gate(after, 2);
    V2Reply end =
        pollUntil(after, requestId, operationId, V2Reply::isTerminal)
            .assertState(CetpV2.STATE_SUCCEEDED);
    assertEquals(2, end.operationValue());
    assertEquals(1, gate(after, 0).getInt("runs"));
    // A retry of the call with the same request id gets the same operation, not a second run.
    V2Reply retried = after.send(CetpV2.METHOD_EXECUTE_TOOL, accepted.request()).assertAccepted();
    assertEquals(operationId, retried.operationId());
    assertEquals(1, gate(after, 0).getInt("runs"));
  }

  /**
   * The kit's operation checks on {@code crawl}, its gate opened beforehand for the three calls
   * the checks make: with a zero inline window each call in a session with {@code
   * async_operations} goes on as an operation unless the tool was already done (then the
   * checks take the reply as it is).
   */
  @Test
  public void crawlPassesTheKitsOperationChecks() {
    V2Session session = both(cetp.agent("com.example.agent"));
    gate(session, 3);
    assertEquals(List.of(), session.operationProblems("crawl", "{\"steps\":1}"));
  }

  /**
   * The kit never sends an operation method the session did not negotiate; sent anyway, the
   * provider refuses it as the specification says.
   */
  @Test
  public void theKitRefusesOperationMethodsTheSessionDidNotNegotiate() {
    Agent agent = cetp.agent("com.example.agent");
    V2Session plain = agent.v2();
    IllegalStateException noPolling =
        assertThrows(IllegalStateException.class, () -> plain.getOperation("op_1"));
    assertTrue(noPolling.getMessage(), noPolling.getMessage().contains("async_operations"));
    assertThrows(IllegalStateException.class, () -> plain.cancelOperation("op_1"));
    V2Session polling = agent.v2(CetpV2.CAPABILITY_ASYNC_OPERATIONS);
    IllegalStateException noCancel =
        assertThrows(IllegalStateException.class, () -> polling.cancelOperation("op_1"));
    assertTrue(noCancel.getMessage(), noCancel.getMessage().contains("cancellation"));
    polling.getOperation("op_1").assertError(CetpV2.RESULT_EXPIRED);

    for (String method :
        new String[] {CetpV2.METHOD_GET_OPERATION, CetpV2.METHOD_CANCEL_OPERATION}) {
      android.os.Bundle extras = plain.extras();
      extras.putString(CetpV2.EXTRA_OPERATION_ID, "op_1");
      plain.send(method, extras).assertError(CetpV2.UNSUPPORTED_CAPABILITY);
    }
    android.os.Bundle cancel = polling.extras();
    cancel.putString(CetpV2.EXTRA_OPERATION_ID, "op_1");
    polling
        .send(CetpV2.METHOD_CANCEL_OPERATION, cancel)
        .assertError(CetpV2.UNSUPPORTED_CAPABILITY);
    // Without async_operations the long-running tool is called as any other, in the reply (its
    // one step let through first: the call waits for it on the test's thread).
    gate(plain, 1);
    assertEquals(1, plain.call("crawl", "{\"steps\":1}").assertSuccess().value());
  }
}
