package dev.cetp.testkit.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import dev.cetp.testkit.ToolReply;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The user's side of the default authorization policy (user approval), without the approval
 * screen: the provider's admin JSON interface ({@code dev.cetp.NativeBridge.admin(String)}, the
 * interface the template's consent dialog uses; see {@code cetp-provider/src/auth/admin.rs}).
 *
 * <p>An agent's {@code execute_tool} answers {@code AUTH_REQUIRED} and leaves a pending request
 * recorded from the caller's identity (UID, packages, certificates). The user approves it by id,
 * with full or limited access, optionally only some of the requested scopes:
 *
 * <pre>{@code
 * ConsentAdmin.of(transport, AUTHORITY, AGENT_UID)
 *     .call("get_note", "{\"id\":1}")      // AUTH_REQUIRED, recorded
 *     .call("list_tags", "{}")             // merged into the same request
 *     .approve(ConsentAdmin.Access.LIMITED); // the request approved by id
 * }</pre>
 *
 * <p>{@code NativeBridge} is package-private in the bundle's {@code app.jar}, so it is reached by
 * reflection; the provider must have been started ({@code Installed.startProviders()}).
 */
public final class ConsentAdmin {
  private ConsentAdmin() {}

  /** The access level of a grant, as the admin interface spells it. */
  public enum Access {
    /** Everything the scopes cover. */
    FULL(Wire.ADMIN_ACCESS_FULL),
    /** Only what the provider shows limited callers. */
    LIMITED(Wire.ADMIN_ACCESS_LIMITED);

    /** The level as the admin JSON spells it. */
    public final String wire;

    Access(String wire) {
      this.wire = wire;
    }
  }

  private static final String BRIDGE = "dev.cetp.CetpRuntime";

  /**
   * Sends one admin request and returns the whole reply ({@code ok}, {@code error}, {@code
   * state}). Fails if the bridge returned null or something that is not a JSON object.
   */
  public static JSONObject admin(JSONObject request) {
    String reply;
    try {
      Method admin = Class.forName(BRIDGE).getDeclaredMethod("admin", String.class);
      admin.setAccessible(true);
      reply = (String) admin.invoke(null, request.toString());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(BRIDGE + " is not in the bundle's app.jar", e);
    } catch (NoSuchMethodException | IllegalAccessException e) {
      throw new IllegalStateException("cannot reach " + BRIDGE + ".admin(String)", e);
    } catch (InvocationTargetException e) {
      throw new IllegalStateException(BRIDGE + ".admin threw", e.getCause());
    }
    if (reply == null) {
      throw new AssertionError(BRIDGE + ".admin returned null for " + request);
    }
    try {
      return new JSONObject(reply);
    } catch (JSONException e) {
      throw new AssertionError("admin reply is not a JSON object: " + reply, e);
    }
  }

  /** {@link #admin} that must succeed ({@code ok: true}); returns the state after it. */
  public static JSONObject adminOk(JSONObject request) {
    JSONObject reply = admin(request);
    if (!reply.optBoolean(Wire.ADMIN_KEY_OK, false)) {
      throw new AssertionError("admin " + request + " failed: " + reply);
    }
    try {
      return reply.getJSONObject(Wire.ADMIN_KEY_STATE);
    } catch (JSONException e) {
      throw new AssertionError("admin reply without state: " + reply, e);
    }
  }

  /** What the consent dialog shows: provider, scopes, pending, grants, denials, store_open. */
  public static JSONObject state() {
    return adminOk(object(Wire.ADMIN_OP, Wire.ADMIN_OP_STATE));
  }

  /** The pending requests, in order of first request. */
  public static JSONArray pending() {
    try {
      return state().getJSONArray(Wire.ADMIN_KEY_PENDING);
    } catch (JSONException e) {
      throw new AssertionError(e);
    }
  }

  /** The stored grants. */
  public static JSONArray grants() {
    try {
      return state().getJSONArray(Wire.ADMIN_KEY_GRANTS);
    } catch (JSONException e) {
      throw new AssertionError(e);
    }
  }

  /** The scope names pending request {@code id} lists; fails if it is not pending. */
  private static List<String> listedScopes(String id) throws JSONException {
    JSONArray all = pending();
    for (int i = 0; i < all.length(); i++) {
      JSONObject request = all.getJSONObject(i);
      if (id.equals(request.optString(Wire.ADMIN_KEY_ID))) {
        JSONArray scopes = request.getJSONArray(Wire.ADMIN_KEY_SCOPES);
        List<String> names = new ArrayList<>();
        for (int j = 0; j < scopes.length(); j++) {
          names.add(scopes.getJSONObject(j).getString(Wire.ADMIN_KEY_NAME));
        }
        return names;
      }
    }
    throw new AssertionError("no pending request " + id + ": " + all);
  }

  /** The only pending request recorded for calls from {@code uid}; fails if none or several. */
  public static JSONObject pendingFrom(int uid) {
    JSONArray all = pending();
    List<JSONObject> found = new ArrayList<>();
    for (int i = 0; i < all.length(); i++) {
      JSONObject request = all.optJSONObject(i);
      if (request != null
          && !request.isNull(Wire.ADMIN_KEY_UID)
          && request.optInt(Wire.ADMIN_KEY_UID) == uid) {
        found.add(request);
      }
    }
    if (found.size() != 1) {
      throw new AssertionError(
          "expected one pending request from uid " + uid + ", found " + found.size() + ": " + all);
    }
    return found.get(0);
  }

  /**
   * Approves pending request {@code id} for every requested scope; returns the state after it.
   */
  public static JSONObject approve(String id, Access access) {
    return approve(id, access, null);
  }

  /**
   * Approves pending request {@code id} for {@code scopes} (null: every scope the request lists
   * now, as a screen showing it would send them) with {@code access}; returns the state after
   * it. Fails if the provider refused.
   */
  public static JSONObject approve(String id, Access access, List<String> scopes) {
    return approve(id, access, scopes, null);
  }

  /**
   * {@link #approve(String, Access, List)} for a grant that lapses {@code duration} after the
   * approval (null: never), as the screen's duration choices send it ({@code duration_secs}).
   */
  public static JSONObject approve(
      String id, Access access, List<String> scopes, java.time.Duration duration) {
    JSONObject request = object(Wire.ADMIN_OP, Wire.ADMIN_OP_APPROVE);
    try {
      request.put(Wire.ADMIN_KEY_ID, id).put(Wire.ADMIN_KEY_ACCESS, access.wire);
      if (duration != null) {
        request.put(Wire.ADMIN_KEY_DURATION_SECS, duration.getSeconds());
      }
      request.put(Wire.ADMIN_KEY_SCOPES, new JSONArray(scopes != null ? scopes : listedScopes(id)));
    } catch (JSONException e) {
      throw new AssertionError(e);
    }
    return adminOk(request);
  }

  /** Starts a request from {@code uid} to the provider at {@code authority}. */
  public static Request of(CetpTransport transport, String authority, int uid) {
    return new Request(transport, authority, uid);
  }

  /** Tool calls that must be refused with AUTH_REQUIRED, then the user's approval. */
  public static final class Request {
    private final CetpTransport transport;
    private final String authority;
    private final int uid;
    private int calls;

    private Request(CetpTransport transport, String authority, int uid) {
      this.transport = transport;
      this.authority = authority;
      this.uid = uid;
    }

    /**
     * Calls {@code tool} with {@code args} from the UID; the answer must be AUTH_REQUIRED (which
     * records or extends the caller's pending request).
     */
    public Request call(String tool, String args) {
      ToolReply r;
      try {
        r = Callers.as(uid, () -> transport.executeTool(authority, tool, args, null));
      } catch (Exception e) {
        throw new AssertionError(tool + " from uid " + uid + " threw", e);
      }
      if (!Wire.STATUS_ERROR.equals(r.status()) || !Wire.CODE_AUTH_REQUIRED.equals(r.errorCode())) {
        throw new AssertionError(
            tool + " from uid " + uid + " should answer AUTH_REQUIRED before approval: " + r);
      }
      calls++;
      return this;
    }

    /** The caller's pending request (after at least one {@link #call}). */
    public JSONObject pendingRequest() {
      if (calls == 0) {
        throw new IllegalStateException("call a tool first: nothing is pending before a call");
      }
      return pendingFrom(uid);
    }

    /** Approves the caller's pending request for every requested scope. */
    public JSONObject approve(Access access) {
      return approve(access, null);
    }

    /** Approves the caller's pending request for {@code scopes} (null: all it lists). */
    public JSONObject approve(Access access, List<String> scopes) {
      try {
        return ConsentAdmin.approve(pendingRequest().getString(Wire.ADMIN_KEY_ID), access, scopes);
      } catch (JSONException e) {
        throw new AssertionError(e);
      }
    }
  }

  private static JSONObject object(String key, String value) {
    try {
      return new JSONObject().put(key, value);
    } catch (JSONException e) {
      throw new AssertionError(e);
    }
  }
}
