package dev.cetp;

import java.util.ArrayList;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;
import org.jspecify.annotations.NullUnmarked;

/**
 * The one reader of the admin JSON's replies ({@code Provider::handle_admin_json}): a reply into
 * a {@link CetpAdmin.Reply}, its state into a {@link CetpAdminState}. Absent fields read as
 * nothing (empty, false, zero); the screens never see the JSON.
 */
@NullUnmarked
final class CetpAdminJson {
  private CetpAdminJson() {}

  /** The reply {@code text}; {@code waiting} is -1 (see {@link CetpAdmin.Reply#waiting}). */
  static CetpAdmin.Reply reply(String text) throws JSONException {
    JSONObject parsed = new JSONObject(text);
    JSONObject error = parsed.optJSONObject(Wire.ADMIN_KEY_ERROR);
    boolean ok = parsed.optBoolean(Wire.ADMIN_KEY_OK);
    String kind = error == null ? "" : error.optString(Wire.ADMIN_KEY_KIND);
    return new CetpAdmin.Reply(
        ok,
        ok ? "" : kind,
        state(parsed.optJSONObject(Wire.ADMIN_KEY_STATE)),
        parsed.optBoolean(Wire.ADMIN_KEY_DECISIONS_LOST),
        -1);
  }

  /** The state {@code o}, or null when there is none. */
  static CetpAdminState state(JSONObject o) {
    if (o == null) {
      return null;
    }
    long now = o.optLong(Wire.ADMIN_KEY_NOW_MS, System.currentTimeMillis());
    List<CetpAdminState.PendingRequest> pending = new ArrayList<>();
    for (JSONObject request : objects(o, Wire.ADMIN_KEY_PENDING)) {
      pending.add(request(request, now));
    }
    List<CetpAdminState.Grant> grants = new ArrayList<>();
    for (JSONObject grant : objects(o, Wire.ADMIN_KEY_GRANTS)) {
      grants.add(
          new CetpAdminState.Grant(
              new CetpAdminState.App(
                  grant.optString(Wire.ADMIN_KEY_PACKAGE),
                  string(grant, Wire.ADMIN_KEY_CERTIFICATE_SHA256)),
              scopeAccesses(grant, Wire.ADMIN_KEY_PER_SCOPE),
              access(grant.optJSONObject(Wire.ADMIN_KEY_NO_SCOPE), null),
              grant.isNull(Wire.ADMIN_KEY_LAST_ACCESS_MS)
                  ? -1
                  : grant.optLong(Wire.ADMIN_KEY_LAST_ACCESS_MS),
              grant.optLong(Wire.ADMIN_KEY_CALLS_DAY),
              grant.optLong(Wire.ADMIN_KEY_CALLS_WEEK)));
    }
    List<CetpAdminState.Denial> denials = new ArrayList<>();
    for (JSONObject denial : objects(o, Wire.ADMIN_KEY_DENIALS)) {
      denials.add(
          new CetpAdminState.Denial(
              new CetpAdminState.App(
                  denial.optString(Wire.ADMIN_KEY_PACKAGE),
                  string(denial, Wire.ADMIN_KEY_CERTIFICATE_SHA256)),
              denial.optLong(Wire.ADMIN_KEY_DENIED_AT_MS)));
    }
    return new CetpAdminState(
        o.optString(Wire.ADMIN_KEY_PROVIDER_NAME),
        scopes(o),
        pending,
        grants,
        denials,
        o.optBoolean(Wire.ADMIN_KEY_STORE_OPEN),
        o.optBoolean(Wire.ADMIN_KEY_UNSAVED_CHANGES),
        now,
        o.optBoolean(Wire.ADMIN_KEY_OFFERS_LIMITED_ACCESS, true));
  }

  private static CetpAdminState.PendingRequest request(JSONObject o, long now) {
    List<CetpAdminState.App> packages = new ArrayList<>();
    for (JSONObject p : objects(o, Wire.ADMIN_KEY_PACKAGES)) {
      JSONArray certs = p.optJSONArray(Wire.ADMIN_KEY_CERTIFICATE_SHA256);
      String first =
          certs == null || certs.length() == 0 ? null : certs.optString(0);
      packages.add(new CetpAdminState.App(p.optString(Wire.ADMIN_KEY_NAME), first));
    }
    JSONObject holds = o.optJSONObject(Wire.ADMIN_KEY_HOLDS);
    long requestedAt = o.optLong(Wire.ADMIN_KEY_REQUESTED_AT_MS, now);
    return new CetpAdminState.PendingRequest(
        o.optString(Wire.ADMIN_KEY_ID),
        o.isNull(Wire.ADMIN_KEY_UID) ? -1 : o.optInt(Wire.ADMIN_KEY_UID, -1),
        packages,
        scopes(o),
        o.optLong(Wire.ADMIN_KEY_FIRST_REQUESTED_MS, requestedAt),
        requestedAt,
        o.optLong(Wire.ADMIN_KEY_EXPIRES_AT_MS, 0),
        holds == null ? new ArrayList<>() : scopeAccesses(holds, Wire.ADMIN_KEY_SCOPES),
        holds == null ? null : access(holds.optJSONObject(Wire.ADMIN_KEY_NO_SCOPE), null),
        o.optBoolean(Wire.ADMIN_KEY_ASKS_FOR_MORE));
  }

  /** The scopes under {@code scopes} ({@code name} and {@code description} each). */
  private static List<CetpAdminState.Scope> scopes(JSONObject o) {
    List<CetpAdminState.Scope> out = new ArrayList<>();
    for (JSONObject scope : objects(o, Wire.ADMIN_KEY_SCOPES)) {
      String name = scope.optString(Wire.ADMIN_KEY_NAME);
      String description = scope.optString(Wire.ADMIN_KEY_DESCRIPTION);
      out.add(new CetpAdminState.Scope(name, description.isEmpty() ? name : description));
    }
    return out;
  }

  /** The entries under {@code key}, each with its {@code scope}, level and expiry. */
  private static List<CetpAdminState.ScopeAccess> scopeAccesses(JSONObject o, String key) {
    List<CetpAdminState.ScopeAccess> out = new ArrayList<>();
    for (JSONObject entry : objects(o, key)) {
      out.add(access(entry, entry.optString(Wire.ADMIN_KEY_SCOPE)));
    }
    return out;
  }

  /** The level and expiry {@code entry} gives {@code scope}, or null without an entry. */
  private static CetpAdminState.ScopeAccess access(JSONObject entry, String scope) {
    if (entry == null) {
      return null;
    }
    return new CetpAdminState.ScopeAccess(
        scope,
        Wire.ADMIN_ACCESS_LIMITED.equals(entry.optString(Wire.ADMIN_KEY_ACCESS)),
        entry.isNull(Wire.ADMIN_KEY_EXPIRES_AT_MS)
            ? CetpAdminState.ScopeAccess.NEVER
            : entry.optLong(Wire.ADMIN_KEY_EXPIRES_AT_MS),
        entry.optBoolean(Wire.ADMIN_KEY_EXPIRED));
  }

  /** The objects of the array under {@code key} (none when it is absent). */
  private static List<JSONObject> objects(JSONObject o, String key) {
    List<JSONObject> out = new ArrayList<>();
    JSONArray array = o.optJSONArray(key);
    for (int i = 0; array != null && i < array.length(); i++) {
      JSONObject item = array.optJSONObject(i);
      if (item != null) {
        out.add(item);
      }
    }
    return out;
  }

  /** {@code o}'s string under {@code key}, or null when it is absent or JSON null. */
  private static String string(JSONObject o, String key) {
    return o.isNull(key) ? null : o.optString(key, null);
  }
}
