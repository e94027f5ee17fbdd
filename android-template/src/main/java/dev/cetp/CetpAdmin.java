package dev.cetp;

import android.util.Log;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The approval screen's client of the provider's admin JSON interface ({@code
 * NativeBridge.admin}, {@code Provider::handle_admin_json} in Rust): one method per operation, each
 * returning the {@link Reply} with the state after it.
 *
 * <p>Calls run on the caller's thread (the main thread): they read memory and, for a decision,
 * write the small grant file.
 */
final class CetpAdmin {
  private CetpAdmin() {}

  /** An admin reply: whether it worked, the error kind if not, and the state after it. */
  static final class Reply {
    /** Whether the operation succeeded. */
    final boolean ok;
    /** {@code unknown_request}, {@code persist_failed}, ...; empty when {@link #ok}. */
    final String errorKind;
    /** The provider's state after the operation; null when the provider is not reachable. */
    final JSONObject state;
    /** The provider found its stored decisions unreadable and lost them (the screens say so). */
    final boolean decisionsLost;

    Reply(boolean ok, String errorKind, JSONObject state, boolean decisionsLost) {
      this.ok = ok;
      this.errorKind = errorKind;
      this.state = state;
      this.decisionsLost = decisionsLost;
    }

    /** Whether the user's choice was refused because the request changed or was answered. */
    boolean requestChanged() {
      return errorKind.equals("unknown_request")
          || errorKind.equals("scope_not_requested")
          || errorKind.equals("not_found");
    }
  }

  /** The reply when the native library is not loaded or answered nonsense. */
  private static final Reply UNREACHABLE = new Reply(false, "unreachable", null, false);

  /**
   * The state, with pending requests restricted to {@code callerUid} (the app that opened the
   * screen) when it is not negative.
   */
  static Reply state(int callerUid) {
    return send(caller(object("op", "state"), callerUid));
  }

  /**
   * Approves request {@code id} for exactly {@code scopes} (the ones the screen displayed); with
   * {@code callerUid} ≥ 0 the provider refuses a request of another app.
   */
  static Reply approve(String id, List<String> scopes, boolean limited, long durationSecs, int callerUid) {
    Json request =
        object("op", "approve")
            .putOpt("id", id)
            .putOpt("scopes", new JSONArray(scopes))
            .putOpt("access", limited ? "limited" : "full");
    if (durationSecs > 0) {
      request.putOpt("duration_secs", durationSecs);
    }
    return send(caller(request, callerUid));
  }

  static Reply deny(String id, int callerUid) {
    return send(caller(object("op", "deny").putOpt("id", id), callerUid));
  }

  private static Json caller(Json request, int callerUid) {
    return callerUid >= 0 ? request.putOpt("caller_uid", callerUid) : request;
  }

  static Reply revoke(String pkg, String certificate) {
    return send(object("op", "revoke").putOpt("package", pkg).putOpt("certificate_sha256", certificate));
  }

  static Reply clearDenial(String pkg, String certificate) {
    return send(
        object("op", "clear_denial").putOpt("package", pkg).putOpt("certificate_sha256", certificate));
  }

  private static Reply send(Json request) {
    String reply;
    try {
      reply = CetpRuntime.admin(request.json.toString());
    } catch (LinkageError e) {
      // The library never loaded (the provider logged why).
      Log.e(CetpRuntime.TAG, "CETP approval screen: the native library is not loaded", e);
      return UNREACHABLE;
    }
    if (reply == null) {
      return UNREACHABLE;
    }
    try {
      JSONObject parsed = new JSONObject(reply);
      JSONObject error = parsed.optJSONObject("error");
      String kind = error == null ? "" : error.optString("kind");
      boolean ok = parsed.optBoolean("ok");
      if (!ok) {
        Log.w(
            CetpRuntime.TAG,
            "CETP approval screen: " + request.json.optString("op") + " failed: " + error);
      }
      return new Reply(
          ok, ok ? "" : kind, parsed.optJSONObject("state"), parsed.optBoolean("decisions_lost"));
    } catch (JSONException e) {
      Log.e(CetpRuntime.TAG, "CETP approval screen: unreadable admin reply", e);
      return UNREACHABLE;
    }
  }

  private static Json object(String key, String value) {
    return new Json().putOpt(key, value);
  }

  /** A JSONObject builder whose puts cannot fail (keys are constants, values are finite). */
  private static final class Json {
    final JSONObject json = new JSONObject();

    Json putOpt(String key, Object value) {
      try {
        json.putOpt(key, value);
      } catch (JSONException e) {
        throw new IllegalStateException(e);
      }
      return this;
    }
  }
}
