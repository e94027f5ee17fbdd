package dev.cetp;

import android.app.Activity;
import android.view.LayoutInflater;
import android.view.View;
import android.widget.LinearLayout;
import android.widget.TextView;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * Apps with access ({@code res/layout/cetp_grants.xml}): every allowed app with what it may read,
 * how much, until when, and when it last read and how often (the provider's on-device access
 * log); every declined app; and the actions Remove access and Let it ask again.
 */
final class CetpGrantsScreen {
  /** What the Activity does with the user's actions. */
  interface Actions {
    void revoke(String pkg, String certificate);

    void clearDenial(String pkg, String certificate);
  }

  private final Activity activity;
  private final Actions actions;
  private final List<View> actionButtons = new ArrayList<>();

  CetpGrantsScreen(Activity activity, Actions actions) {
    this.activity = activity;
    this.actions = actions;
  }

  /** Shows {@code state} (the admin JSON), with {@code notice} on top when an action failed. */
  void show(JSONObject state, String notice, boolean decisionsLost) {
    activity.setContentView(R.layout.cetp_grants);
    actionButtons.clear();
    String provider = state.optString("provider_name");
    text(R.id.cetp_title).setText(activity.getString(R.string.cetp_manage_title, provider));
    text(R.id.cetp_intro).setText(activity.getString(R.string.cetp_manage_intro, provider));
    TextView message = text(R.id.cetp_message);
    message.setText(notice);
    message.setVisibility(notice != null ? View.VISIBLE : View.GONE);
    text(R.id.cetp_decisions_lost).setVisibility(decisionsLost ? View.VISIBLE : View.GONE);

    Map<String, String> scopeWords = new LinkedHashMap<>();
    JSONArray declared = CetpViews.array(state, "scopes");
    for (int i = 0; i < declared.length(); i++) {
      JSONObject scope = declared.optJSONObject(i);
      String description = scope.optString("description");
      scopeWords.put(scope.optString("name"), description.isEmpty() ? scope.optString("name") : description);
    }
    long now = state.optLong("now_ms", System.currentTimeMillis());
    LayoutInflater inflater = activity.getLayoutInflater();

    JSONArray grants = CetpViews.array(state, "grants");
    text(R.id.cetp_no_grants).setVisibility(grants.length() == 0 ? View.VISIBLE : View.GONE);
    LinearLayout grantList = activity.findViewById(R.id.cetp_grants);
    for (int n = 0; n < grants.length(); n++) {
      JSONObject grant = grants.optJSONObject(n);
      String pkg = grant.optString("package");
      String cert = grant.isNull("certificate_sha256") ? null : grant.optString("certificate_sha256");
      View card = inflater.inflate(R.layout.cetp_grant_item, grantList, false);
      CetpViews.showApp(card, pkg, cert);
      JSONArray scopes = CetpViews.array(grant, "scopes");
      List<String> words = new ArrayList<>();
      for (int i = 0; i < scopes.length(); i++) {
        String scope = scopes.optString(i);
        String described = scopeWords.get(scope);
        words.add(described == null ? scope : described);
      }
      ((TextView) card.findViewById(R.id.cetp_grant_scopes))
          .setText(
              words.isEmpty()
                  ? activity.getString(R.string.cetp_grant_scopes_any)
                  : activity.getString(R.string.cetp_grant_scopes, String.join(", ", words)));
      String level =
          activity.getString(
              "limited".equals(grant.optString("access"))
                  ? R.string.cetp_grant_access_limited
                  : R.string.cetp_grant_access_full);
      ((TextView) card.findViewById(R.id.cetp_grant_terms))
          .setText(activity.getString(R.string.cetp_grant_terms, level, until(grant, now)));
      ((TextView) card.findViewById(R.id.cetp_history)).setText(history(grant));
      View revoke = card.findViewById(R.id.cetp_revoke);
      revoke.setOnClickListener(v -> actions.revoke(pkg, cert));
      actionButtons.add(revoke);
      grantList.addView(card);
    }

    JSONArray denials = CetpViews.array(state, "denials");
    text(R.id.cetp_no_denials).setVisibility(denials.length() == 0 ? View.VISIBLE : View.GONE);
    LinearLayout denialList = activity.findViewById(R.id.cetp_denials);
    for (int n = 0; n < denials.length(); n++) {
      JSONObject denial = denials.optJSONObject(n);
      String pkg = denial.optString("package");
      String cert = denial.isNull("certificate_sha256") ? null : denial.optString("certificate_sha256");
      View card = inflater.inflate(R.layout.cetp_denial_item, denialList, false);
      CetpViews.showApp(card, pkg, cert);
      ((TextView) card.findViewById(R.id.cetp_denied_on))
          .setText(
              activity.getString(
                  R.string.cetp_denied_on, CetpViews.date(activity, denial.optLong("denied_at_ms"))));
      View again = card.findViewById(R.id.cetp_allow_again);
      again.setOnClickListener(v -> actions.clearDenial(pkg, cert));
      actionButtons.add(again);
      denialList.addView(card);
    }
    CetpViews.guard(actionButtons.toArray(new View[0]));
  }

  /** Disables (or enables again) Remove access and Let it ask again while one is being saved. */
  void setBusy(boolean busy) {
    for (View button : actionButtons) {
      button.setEnabled(!busy);
    }
  }

  private String until(JSONObject grant, long now) {
    if (grant.isNull("expires_at_ms") || !grant.has("expires_at_ms")) {
      return activity.getString(R.string.cetp_grant_forever);
    }
    long expires = grant.optLong("expires_at_ms");
    return activity.getString(
        expires <= now ? R.string.cetp_grant_expired : R.string.cetp_grant_until,
        CetpViews.date(activity, expires));
  }

  /** What the access log says about the grant's app. */
  private String history(JSONObject grant) {
    if (!grant.has("last_access_ms") || grant.isNull("last_access_ms")) {
      return activity.getString(R.string.cetp_history_never);
    }
    int day = (int) Math.min(Integer.MAX_VALUE, grant.optLong("calls_day"));
    int week = (int) Math.min(Integer.MAX_VALUE, grant.optLong("calls_week"));
    return activity.getString(
        R.string.cetp_history,
        CetpViews.date(activity, grant.optLong("last_access_ms")),
        activity.getResources().getQuantityString(R.plurals.cetp_calls_today, day, day),
        activity.getResources().getQuantityString(R.plurals.cetp_calls_week, week, week));
  }

  private TextView text(int id) {
    return activity.findViewById(id);
  }
}
