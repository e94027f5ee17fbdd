package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import dev.cetp.e2e.category.AuthProviderBundle;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Test;
import org.junit.experimental.categories.Category;

/**
 * The consent dialog's controller ({@code dev.cetp.CetpConsentController}) on its own: plain
 * Java, no Activity, no view, no Robolectric. States are admin JSON read by the template's own
 * parser ({@code CetpAdminJson}); the classes are the template's, package-private, so they are
 * reached by reflection. Runs in {@code bundle-auth-provider} (whose app.jar holds them).
 */
@Category(AuthProviderBundle.class)
public class ConsentControllerTest {
  static final int RESULT_OK = -1;
  static final int RESULT_CANCELED = 0;
  static final long NOW = 1_767_225_600_000L;

  /** A pending request {@code id} of {@code uid}, first asked at {@code first}. */
  private static JSONObject request(String id, int uid, long first) throws Exception {
    return new JSONObject()
        .put("id", id)
        .put("uid", uid)
        .put("packages", new JSONArray())
        .put("scopes", new JSONArray())
        .put("first_requested_ms", first)
        .put("requested_at_ms", first)
        .put("expires_at_ms", NOW + 60_000);
  }

  private static Object state(boolean storeOpen, JSONObject... pending) throws Exception {
    JSONObject state =
        new JSONObject()
            .put("provider_name", "Notes")
            .put("store_open", storeOpen)
            .put("now_ms", NOW)
            .put("pending", new JSONArray(java.util.Arrays.asList(pending)));
    Method parse =
        Class.forName("dev.cetp.CetpAdminJson").getDeclaredMethod("state", JSONObject.class);
    parse.setAccessible(true);
    return parse.invoke(null, state);
  }

  private static Object controller(int uid, String chosen, String deciding, int result)
      throws Exception {
    Constructor<?> make =
        Class.forName("dev.cetp.CetpConsentController")
            .getDeclaredConstructor(int.class, String.class, String.class, int.class);
    make.setAccessible(true);
    return make.newInstance(uid, chosen, deciding, result);
  }

  private static Object call(Object target, String name, Object... args) throws Exception {
    for (Method method : target.getClass().getDeclaredMethods()) {
      if (method.getName().equals(name) && method.getParameterCount() == args.length) {
        method.setAccessible(true);
        return method.invoke(target, args);
      }
    }
    throw new NoSuchMethodException(name);
  }

  private static Object field(Object target, String name) throws Exception {
    Field field = target.getClass().getDeclaredField(name);
    field.setAccessible(true);
    return field.get(target);
  }

  /** The plan's show, and the id of the request it shows (or "-"). */
  private static String shown(Object plan) throws Exception {
    Object request = field(plan, "request");
    return field(plan, "show") + " " + (request == null ? "-" : field(request, "id"));
  }

  private static Object onState(Object controller, Object state) throws Exception {
    return call(controller, "onState", state, false);
  }

  @Test
  public void aKnownAppSeesItsRequestWhichIsReadAgainWhenItLapses() throws Exception {
    Object controller = controller(10_123, null, null, RESULT_CANCELED);
    Object plan = onState(controller, state(true, request("b", 10_123, NOW - 5), request("a", 10_123, NOW - 9)));
    assertEquals("the one asked first", "REQUEST a", shown(plan));
    assertEquals(true, field(plan, "mayKeep"));
    assertEquals(60_000L, field(plan, "lapseInMs"));
    assertNull(field(plan, "result"));
    assertEquals("nothing to decide", "NOTHING -", shown(onState(controller, state(true))));
    assertEquals("UNAVAILABLE -", shown(onState(controller, state(false))));
    assertEquals("UNAVAILABLE -", shown(onState(controller, null)));
  }

  @Test
  public void theListChoosesNothingForTheUser() throws Exception {
    Object controller = controller(-1, null, null, RESULT_CANCELED);
    Object state = state(true, request("a", 10_123, NOW - 9), request("b", 10_124, NOW - 5));
    assertEquals("LIST -", shown(onState(controller, state)));
    Object pending = ((java.util.List<?>) field(state, "pending")).get(1);
    call(controller, "review", pending);
    assertEquals("REQUEST b", shown(onState(controller, state)));
    assertEquals("a decision names the request's own UID", 10_124, call(controller, "uidFor", pending));
    call(controller, "backToRequests");
    assertEquals("LIST -", shown(onState(controller, state)));
  }

  @Test
  public void oneDecisionAtATimeAndWhatFollowsIt() throws Exception {
    Object controller = controller(10_123, null, null, RESULT_CANCELED);
    Object state = state(true, request("a", 10_123, NOW));
    Object pending = ((java.util.List<?>) field(state, "pending")).get(0);
    assertEquals("the launcher's UID", 10_123, call(controller, "uidFor", pending));
    assertTrue((Boolean) call(controller, "startDeciding", "a", RESULT_OK));
    assertFalse((Boolean) call(controller, "startDeciding", "a", RESULT_CANCELED));
    // Refused because the request changed: the state again, with a notice.
    Object plan = call(controller, "afterDecision", false, true, RESULT_OK, -1);
    assertNull(field(plan, "show"));
    assertEquals(true, field(plan, "refresh"));
    plan = onState(controller, state);
    assertEquals("REQUEST a", shown(plan));
    assertEquals("REQUEST_CHANGED", String.valueOf(field(plan, "notice")));
    assertEquals("a notice redraws the request", false, field(plan, "mayKeep"));
    // Saved: back to the app that asked, saying how many others wait.
    assertTrue((Boolean) call(controller, "startDeciding", "a", RESULT_OK));
    plan = call(controller, "afterDecision", true, false, RESULT_OK, 2);
    assertEquals("FINISH -", shown(plan));
    assertEquals(RESULT_OK, field(plan, "result"));
    assertEquals(2, field(plan, "waiting"));
  }

  @Test
  public void aDecisionSavedWhileTheDialogWasRecreatedIsSettled() throws Exception {
    // Gone from the pending requests: it went through.
    Object plan = onState(controller(10_123, null, "a", RESULT_OK), state(true));
    assertEquals("FINISH -", shown(plan));
    assertEquals(RESULT_OK, field(plan, "result"));
    // Still pending: it was not saved.
    plan = onState(controller(10_123, null, "a", RESULT_OK), state(true, request("a", 10_123, NOW)));
    assertEquals("REQUEST a", shown(plan));
    assertEquals("SAVE_FAILED", String.valueOf(field(plan, "notice")));
    // On the list, the dialog closes once every request it answered is gone.
    Object listing = controller(-1, "a", "a", RESULT_CANCELED);
    plan = onState(listing, state(true));
    assertEquals("FINISH -", shown(plan));
    assertEquals(RESULT_CANCELED, field(plan, "result"));
  }
}
