package dev.cetp;

import android.app.Activity;
import android.content.Intent;
import android.content.pm.PackageManager;
import android.graphics.Typeface;
import android.os.Bundle;
import android.util.Log;
import android.util.TypedValue;
import android.view.View;
import android.widget.Button;
import android.widget.LinearLayout;
import android.widget.RadioButton;
import android.widget.RadioGroup;
import android.widget.ScrollView;
import android.widget.TextView;
import java.text.DateFormat;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The approval screen: the user allows or denies consumer apps that asked for the app's data,
 * and reviews or revokes earlier decisions.
 *
 * <p>Consumers open it with the {@code authorize_intent} of an {@code AUTH_REQUIRED} reply, the
 * implicit action {@code <applicationId>.CETP_AUTHORIZE}; {@code <applicationId>.CETP_MANAGE_GRANTS}
 * (or the screen's own button) opens the list of allowed and declined apps.
 *
 * <p><b>Nothing from the launching intent but its action is read.</b> Any app can start an
 * exported Activity with any extras, so the screen shows and decides only the pending requests
 * the provider recorded from the caller's Binder identity ({@code NativeBridge.admin}, op {@code
 * state}), by their ids, for exactly the scopes it displayed. Decision buttons ignore touches
 * while another window covers them (tapjacking).
 *
 * <p>The UI is built in code from framework widgets (no layouts, no androidx) and follows the
 * app's theme; strings come from {@link CetpStrings} ({@code res/values/strings.xml}). Views the
 * tests (and an app's own UI tests) need carry tags: {@code cetp:allow:<n>}, {@code
 * cetp:deny:<n>}, {@code cetp:duration:<n>:hour|day|month|forever}, {@code
 * cetp:access:<n>:full|limited} for the n-th request shown, {@code cetp:revoke:<n>}, {@code
 * cetp:allow_again:<n>}, {@code cetp:manage} and {@code cetp:message}.
 */
public class CetpAuthorizeActivity extends Activity {
  /** Appended to the application id: the action consumers launch (the {@code authorize_intent}). */
  public static final String AUTHORIZE_ACTION_SUFFIX = ".CETP_AUTHORIZE";

  /** Appended to the application id: opens the list of allowed and declined apps. */
  public static final String MANAGE_ACTION_SUFFIX = ".CETP_MANAGE_GRANTS";

  private static final String STATE = "{\"op\":\"state\"}";
  private static final long HOUR_SECS = 3600;
  private static final long DAY_SECS = 24 * HOUR_SECS;
  private static final long MONTH_SECS = 30 * DAY_SECS;

  private boolean manage;
  /** A notice for the next render (an action failed), or null. */
  private String notice;
  /** Whether the last decision was an approval (the result when the screen closes). */
  private boolean approvedLast;

  @Override
  protected void onCreate(Bundle savedInstanceState) {
    super.onCreate(savedInstanceState);
    // Only the action is read: extras could come from any app (see the class comment).
    Intent intent = getIntent();
    String action = intent == null ? null : intent.getAction();
    manage = action != null && action.endsWith(MANAGE_ACTION_SUFFIX);
  }

  @Override
  protected void onResume() {
    super.onResume();
    // Re-read on every return: requests and grants change while the screen is away.
    render(admin(STATE));
  }

  // ------------------------------------------------------------------------------------------
  // The native state

  /** One admin request; the parsed reply, or null if the provider is not reachable. */
  private static JSONObject admin(String request) {
    String reply;
    try {
      reply = NativeBridge.admin(request);
    } catch (LinkageError e) {
      // The library never loaded (the provider logged why).
      Log.e(CetpToolProvider.TAG, "CETP approval screen: the native library is not loaded", e);
      return null;
    }
    if (reply == null) {
      return null;
    }
    try {
      return new JSONObject(reply);
    } catch (JSONException e) {
      Log.e(CetpToolProvider.TAG, "CETP approval screen: unreadable admin reply", e);
      return null;
    }
  }

  private void decide(JSONObject request) {
    JSONObject reply = admin(request.toString());
    if (reply == null || !reply.optBoolean("ok")) {
      JSONObject error = reply == null ? null : reply.optJSONObject("error");
      String kind = error == null ? "" : error.optString("kind");
      Log.w(
          CetpToolProvider.TAG,
          "CETP approval screen: " + request.optString("op") + " failed: " + error);
      notice =
          kind.equals("unknown_request") || kind.equals("scope_not_requested")
                  || kind.equals("not_found")
              ? s("cetp_request_changed")
              : s("cetp_save_failed");
      render(reply != null && reply.has("state") ? reply : admin(STATE));
      return;
    }
    JSONObject state = reply.optJSONObject("state");
    JSONArray pending = state == null ? null : state.optJSONArray("pending");
    if (!manage && (pending == null || pending.length() == 0)) {
      // Every request is answered: back to the app that asked.
      setResult(approvedLast ? RESULT_OK : RESULT_CANCELED);
      finish();
      return;
    }
    render(reply);
  }

  private void approve(String id, List<String> scopes, long durationSecs, boolean limited) {
    try {
      JSONObject request = new JSONObject();
      request.put("op", "approve");
      request.put("id", id);
      // Exactly the scopes shown: a request merged with a later one may have grown since.
      request.put("scopes", new JSONArray(scopes));
      request.put("access", limited ? "redacted" : "full");
      if (durationSecs > 0) {
        request.put("duration_secs", durationSecs);
      }
      approvedLast = true;
      decide(request);
    } catch (JSONException e) {
      throw new IllegalStateException(e);
    }
  }

  private void deny(String id) {
    approvedLast = false;
    decide(op("deny", "id", id, null, null));
  }

  private void forget(String op, String pkg, String certificate) {
    decide(op(op, "package", pkg, "certificate_sha256", certificate));
  }

  private static JSONObject op(String op, String key, String value, String key2, String value2) {
    try {
      JSONObject request = new JSONObject();
      request.put("op", op);
      request.put(key, value);
      if (key2 != null && value2 != null) {
        request.put(key2, value2);
      }
      return request;
    } catch (JSONException e) {
      throw new IllegalStateException(e);
    }
  }

  // ------------------------------------------------------------------------------------------
  // Screens

  private void render(JSONObject reply) {
    LinearLayout page = vertical();
    int pad = dp(16);
    page.setPadding(pad, pad, pad, pad);
    JSONObject state = reply == null ? null : reply.optJSONObject("state");
    if (notice != null) {
      TextView n = text(notice);
      n.setTag("cetp:message");
      n.setTypeface(Typeface.DEFAULT_BOLD);
      page.addView(n);
      notice = null;
    }
    if (state == null || !state.optBoolean("store_open")) {
      page.addView(text(s("cetp_unavailable")));
    } else {
      String provider = state.optString("provider_name");
      if (manage) {
        renderManage(page, state, provider);
      } else {
        renderRequests(page, state, provider);
      }
    }
    ScrollView scroll = new ScrollView(this);
    scroll.addView(page);
    setContentView(scroll);
  }

  private void renderRequests(LinearLayout page, JSONObject state, String provider) {
    String title = s("cetp_authorize_title", provider);
    page.addView(heading(title));
    JSONArray pending = array(state, "pending");
    if (pending.length() == 0) {
      page.addView(text(s("cetp_no_pending")));
    }
    // Newest first: most likely the app that just opened this screen.
    for (int n = 0; n < pending.length(); n++) {
      JSONObject request = pending.optJSONObject(pending.length() - 1 - n);
      if (request != null) {
        page.addView(requestCard(request, n, provider));
      }
    }
    Button manageButton = button(s("cetp_manage_button"));
    manageButton.setTag("cetp:manage");
    manageButton.setOnClickListener(
        v ->
            startActivity(
                new Intent(this, CetpAuthorizeActivity.class)
                    .setAction(getPackageName() + MANAGE_ACTION_SUFFIX)));
    page.addView(manageButton);
  }

  private View requestCard(JSONObject request, int n, String provider) {
    LinearLayout card = vertical();
    card.setPadding(0, dp(16), 0, dp(8));
    String id = request.optString("id");
    JSONArray packages = array(request, "packages");
    List<String> labels = new ArrayList<>();
    for (int i = 0; i < packages.length(); i++) {
      labels.add(appLabel(packages.optJSONObject(i).optString("name")));
    }
    TextView intro = text(s("cetp_request_intro", String.join(", ", labels), provider));
    intro.setTypeface(Typeface.DEFAULT_BOLD);
    card.addView(intro);
    for (int i = 0; i < packages.length(); i++) {
      JSONObject p = packages.optJSONObject(i);
      card.addView(small(identity(p.optString("name"), firstCertificate(p))));
    }
    if (packages.length() > 1) {
      card.addView(small(s("cetp_shared_identity")));
    }
    JSONArray scopes = array(request, "scopes");
    List<String> scopeNames = new ArrayList<>();
    for (int i = 0; i < scopes.length(); i++) {
      JSONObject scope = scopes.optJSONObject(i);
      scopeNames.add(scope.optString("name"));
      card.addView(text(s("cetp_scope_item", words(scope))));
    }
    if (scopes.length() == 0) {
      card.addView(text(s("cetp_scope_any")));
    }

    card.addView(subheading(s("cetp_duration_label")));
    RadioGroup durations = new RadioGroup(this);
    Map<RadioButton, Long> durationSecs = new LinkedHashMap<>();
    durationSecs.put(radio(durations, s("cetp_duration_hour"), "cetp:duration:" + n + ":hour"), HOUR_SECS);
    RadioButton day = radio(durations, s("cetp_duration_day"), "cetp:duration:" + n + ":day");
    durationSecs.put(day, DAY_SECS);
    durationSecs.put(radio(durations, s("cetp_duration_month"), "cetp:duration:" + n + ":month"), MONTH_SECS);
    durationSecs.put(
        radio(durations, s("cetp_duration_forever"), "cetp:duration:" + n + ":forever"), 0L);
    durations.check(day.getId());
    card.addView(durations);

    card.addView(subheading(s("cetp_access_label")));
    RadioGroup access = new RadioGroup(this);
    RadioButton full = radio(access, s("cetp_access_full"), "cetp:access:" + n + ":full");
    RadioButton limited = radio(access, s("cetp_access_limited"), "cetp:access:" + n + ":limited");
    access.check(full.getId());
    card.addView(access);
    card.addView(small(s("cetp_access_limited_help", provider)));

    LinearLayout buttons = new LinearLayout(this);
    buttons.setOrientation(LinearLayout.HORIZONTAL);
    Button denyButton = button(s("cetp_deny"));
    denyButton.setTag("cetp:deny:" + n);
    denyButton.setOnClickListener(v -> deny(id));
    Button allowButton = button(s("cetp_allow"));
    allowButton.setTag("cetp:allow:" + n);
    allowButton.setOnClickListener(
        v -> {
          long secs = 0;
          for (Map.Entry<RadioButton, Long> e : durationSecs.entrySet()) {
            if (e.getKey().isChecked()) {
              secs = e.getValue();
            }
          }
          approve(id, scopeNames, secs, limited.isChecked());
        });
    buttons.addView(denyButton);
    buttons.addView(allowButton);
    card.addView(buttons);
    return card;
  }

  private void renderManage(LinearLayout page, JSONObject state, String provider) {
    String title = s("cetp_manage_title", provider);
    page.addView(heading(title));
    Map<String, String> scopeWords = new LinkedHashMap<>();
    JSONArray declared = array(state, "scopes");
    for (int i = 0; i < declared.length(); i++) {
      JSONObject scope = declared.optJSONObject(i);
      scopeWords.put(scope.optString("name"), words(scope));
    }
    long now = state.optLong("now_ms", System.currentTimeMillis());

    page.addView(subheading(s("cetp_grants_header")));
    JSONArray grants = array(state, "grants");
    if (grants.length() == 0) {
      page.addView(text(s("cetp_no_grants")));
    }
    for (int n = 0; n < grants.length(); n++) {
      JSONObject grant = grants.optJSONObject(n);
      String pkg = grant.optString("package");
      String cert = grant.isNull("certificate_sha256") ? null : grant.optString("certificate_sha256");
      LinearLayout card = vertical();
      card.setPadding(0, dp(8), 0, dp(8));
      TextView name = text(appLabel(pkg));
      name.setTypeface(Typeface.DEFAULT_BOLD);
      card.addView(name);
      card.addView(small(identity(pkg, cert)));
      JSONArray scopes = array(grant, "scopes");
      List<String> words = new ArrayList<>();
      for (int i = 0; i < scopes.length(); i++) {
        String scope = scopes.optString(i);
        String described = scopeWords.get(scope);
        words.add(described == null || described.isEmpty() ? scope : described);
      }
      card.addView(
          text(
              words.isEmpty()
                  ? s("cetp_grant_scopes_any")
                  : s("cetp_grant_scopes", String.join("; ", words))));
      card.addView(
          text(
              "redacted".equals(grant.optString("access"))
                  ? s("cetp_grant_access_limited")
                  : s("cetp_grant_access_full")));
      if (grant.isNull("expires_at_ms") || !grant.has("expires_at_ms")) {
        card.addView(text(s("cetp_grant_forever")));
      } else {
        long expires = grant.optLong("expires_at_ms");
        card.addView(
            text(
                expires <= now
                    ? s("cetp_grant_expired", date(expires))
                    : s("cetp_grant_until", date(expires))));
      }
      Button revoke = button(s("cetp_revoke"));
      revoke.setTag("cetp:revoke:" + n);
      revoke.setOnClickListener(v -> forget("revoke", pkg, cert));
      card.addView(revoke);
      page.addView(card);
    }

    page.addView(subheading(s("cetp_denials_header")));
    JSONArray denials = array(state, "denials");
    if (denials.length() == 0) {
      page.addView(text(s("cetp_no_denials")));
    }
    for (int n = 0; n < denials.length(); n++) {
      JSONObject denial = denials.optJSONObject(n);
      String pkg = denial.optString("package");
      String cert =
          denial.isNull("certificate_sha256") ? null : denial.optString("certificate_sha256");
      LinearLayout card = vertical();
      card.setPadding(0, dp(8), 0, dp(8));
      TextView name = text(appLabel(pkg));
      name.setTypeface(Typeface.DEFAULT_BOLD);
      card.addView(name);
      card.addView(small(identity(pkg, cert)));
      card.addView(text(s("cetp_denied_on", date(denial.optLong("denied_at_ms")))));
      Button again = button(s("cetp_allow_again"));
      again.setTag("cetp:allow_again:" + n);
      again.setOnClickListener(v -> forget("clear_denial", pkg, cert));
      card.addView(again);
      page.addView(card);
    }
  }

  // ------------------------------------------------------------------------------------------
  // Words

  private String s(String name, Object... args) {
    return CetpStrings.get(this, name, args);
  }

  /** The app's label, or its package name when it has none or is not visible. */
  @SuppressWarnings("deprecation") // getApplicationInfo(String, int): API 33 added a flags class
  private String appLabel(String pkg) {
    try {
      PackageManager pm = getPackageManager();
      CharSequence label = pm.getApplicationLabel(pm.getApplicationInfo(pkg, 0));
      if (label != null && label.length() > 0) {
        return label.toString();
      }
    } catch (PackageManager.NameNotFoundException | RuntimeException e) {
      // Not visible to this app: the package name is what we know.
    }
    return pkg;
  }

  private String identity(String pkg, String certificate) {
    return s(
        "cetp_app_identity",
        pkg,
        certificate == null || certificate.isEmpty()
            ? s("cetp_unknown_certificate")
            : shortFingerprint(certificate));
  }

  private static String firstCertificate(JSONObject pkg) {
    JSONArray certs = pkg.optJSONArray("certificate_sha256");
    return certs == null || certs.length() == 0 ? null : certs.optString(0);
  }

  /** The first 8 bytes of a hex SHA-256 digest, as {@code 5F:2A:91:C0:11:22:33:44…}. */
  static String shortFingerprint(String hex) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i + 1 < hex.length() && i < 16; i += 2) {
      if (i > 0) {
        out.append(':');
      }
      out.append(hex.substring(i, i + 2).toUpperCase(Locale.ROOT));
    }
    return out.append('\u2026').toString();
  }

  private static String words(JSONObject scope) {
    String description = scope.optString("description");
    return description.isEmpty() ? scope.optString("name") : description;
  }

  private static String date(long ms) {
    return DateFormat.getDateTimeInstance(DateFormat.MEDIUM, DateFormat.SHORT)
        .format(new Date(ms));
  }

  private static JSONArray array(JSONObject o, String key) {
    JSONArray a = o.optJSONArray(key);
    return a == null ? new JSONArray() : a;
  }

  // ------------------------------------------------------------------------------------------
  // Widgets

  private int dp(int value) {
    return Math.round(value * getResources().getDisplayMetrics().density);
  }

  private LinearLayout vertical() {
    LinearLayout layout = new LinearLayout(this);
    layout.setOrientation(LinearLayout.VERTICAL);
    return layout;
  }

  private TextView text(String value) {
    TextView view = new TextView(this);
    view.setText(value);
    view.setTextSize(TypedValue.COMPLEX_UNIT_SP, 16);
    view.setPadding(0, dp(2), 0, dp(2));
    return view;
  }

  private TextView small(String value) {
    TextView view = text(value);
    view.setTextSize(TypedValue.COMPLEX_UNIT_SP, 13);
    return view;
  }

  private TextView heading(String value) {
    TextView view = text(value);
    view.setTextSize(TypedValue.COMPLEX_UNIT_SP, 22);
    view.setTypeface(Typeface.DEFAULT_BOLD);
    return view;
  }

  private TextView subheading(String value) {
    TextView view = text(value);
    view.setTypeface(Typeface.DEFAULT_BOLD);
    view.setPadding(0, dp(12), 0, dp(2));
    return view;
  }

  private Button button(String value) {
    Button button = new Button(this);
    button.setText(value);
    // Refuse taps while another app's window covers the screen (tapjacking).
    button.setFilterTouchesWhenObscured(true);
    return button;
  }

  private RadioButton radio(RadioGroup group, String value, String tag) {
    RadioButton button = new RadioButton(this);
    button.setId(View.generateViewId());
    button.setText(value);
    button.setTag(tag);
    button.setFilterTouchesWhenObscured(true);
    group.addView(button);
    return button;
  }
}
