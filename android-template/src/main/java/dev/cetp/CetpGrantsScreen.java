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
 * Apps with access ({@code res/layout/cetp_grants.xml}): every allowed app with, per scope, what it
 * may read, how much and until when (and what it may use without scopes), when it last read and
 * how often (the provider's on-device access log); every declined app; and the actions Remove
 * access and Let it ask again.
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
    String provider = state.optString(Wire.ADMIN_KEY_PROVIDER_NAME);
    text(R.id.cetp_title).setText(activity.getString(R.string.cetp_manage_title, provider));
    text(R.id.cetp_intro).setText(activity.getString(R.string.cetp_manage_intro, provider));
    TextView message = text(R.id.cetp_message);
    message.setText(notice);
    message.setVisibility(notice != null ? View.VISIBLE : View.GONE);
    text(R.id.cetp_decisions_lost).setVisibility(decisionsLost ? View.VISIBLE : View.GONE);
    text(R.id.cetp_unsaved_changes)
        .setVisibility(
            state.optBoolean(Wire.ADMIN_KEY_UNSAVED_CHANGES) ? View.VISIBLE : View.GONE);

    Map<String, String> scopeWords = scopeWords(state);
    long now = state.optLong(Wire.ADMIN_KEY_NOW_MS, System.currentTimeMillis());
    LayoutInflater inflater = activity.getLayoutInflater();

    JSONArray grants = CetpViews.array(state, Wire.ADMIN_KEY_GRANTS);
    text(R.id.cetp_no_grants).setVisibility(grants.length() == 0 ? View.VISIBLE : View.GONE);
    LinearLayout grantList = activity.findViewById(R.id.cetp_grants);
    for (int n = 0; n < grants.length(); n++) {
      JSONObject grant = grants.optJSONObject(n);
      String pkg = grant.optString(Wire.ADMIN_KEY_PACKAGE);
      String cert = CetpViews.optString(grant, Wire.ADMIN_KEY_CERTIFICATE_SHA256);
      View card = inflater.inflate(R.layout.cetp_grant_item, grantList, false);
      CetpViews.showApp(card, pkg, cert);
      showScopes(card.findViewById(R.id.cetp_grant_scopes), grant, scopeWords, now);
      ((TextView) card.findViewById(R.id.cetp_history)).setText(history(grant));
      View revoke = card.findViewById(R.id.cetp_revoke);
      revoke.setOnClickListener(v -> actions.revoke(pkg, cert));
      actionButtons.add(revoke);
      grantList.addView(card);
    }

    JSONArray denials = CetpViews.array(state, Wire.ADMIN_KEY_DENIALS);
    text(R.id.cetp_no_denials).setVisibility(denials.length() == 0 ? View.VISIBLE : View.GONE);
    LinearLayout denialList = activity.findViewById(R.id.cetp_denials);
    for (int n = 0; n < denials.length(); n++) {
      JSONObject denial = denials.optJSONObject(n);
      String pkg = denial.optString(Wire.ADMIN_KEY_PACKAGE);
      String cert = CetpViews.optString(denial, Wire.ADMIN_KEY_CERTIFICATE_SHA256);
      View card = inflater.inflate(R.layout.cetp_denial_item, denialList, false);
      CetpViews.showApp(card, pkg, cert);
      ((TextView) card.findViewById(R.id.cetp_denied_on))
          .setText(
              activity.getString(
                  R.string.cetp_denied_on,
                  CetpViews.date(activity, denial.optLong(Wire.ADMIN_KEY_DENIED_AT_MS))));
      View again = card.findViewById(R.id.cetp_allow_again);
      again.setOnClickListener(v -> actions.clearDenial(pkg, cert));
      actionButtons.add(again);
      denialList.addView(card);
    }
    CetpViews.guard(actionButtons.toArray(new View[0]));
  }

  /**
   * The provider's declared scopes, name to the provider's words for them (the name when it gave
   * none), in declaration order.
   */
  static Map<String, String> scopeWords(JSONObject state) {
    Map<String, String> words = new LinkedHashMap<>();
    JSONArray declared = CetpViews.array(state, Wire.ADMIN_KEY_SCOPES);
    for (int i = 0; i < declared.length(); i++) {
      JSONObject scope = declared.optJSONObject(i);
      String name = scope.optString(Wire.ADMIN_KEY_NAME);
      String description = scope.optString(Wire.ADMIN_KEY_DESCRIPTION);
      words.put(name, description.isEmpty() ? name : description);
    }
    return words;
  }

  /**
   * One row per scope of {@code grant}, each with the access and expiry the user chose for it
   * (an expired one says so until the provider drops it), then one for the tools that need no
   * scope when the user allowed those.
   */
  private void showScopes(
      LinearLayout rows, JSONObject grant, Map<String, String> scopeWords, long now) {
    JSONArray perScope = CetpViews.array(grant, Wire.ADMIN_KEY_PER_SCOPE);
    for (int i = 0; i < perScope.length(); i++) {
      JSONObject entry = perScope.optJSONObject(i);
      String scope = entry.optString(Wire.ADMIN_KEY_SCOPE);
      String words = scopeWords.get(scope);
      CetpViews.addScopeRow(
          rows,
          activity.getString(
              R.string.cetp_grant_scopes, CetpViews.isolate(activity, words == null ? scope : words)),
          CetpViews.terms(activity, entry, now));
    }
    JSONObject noScope = grant.optJSONObject(Wire.ADMIN_KEY_NO_SCOPE);
    if (noScope != null) {
      CetpViews.addScopeRow(
          rows,
          activity.getString(R.string.cetp_grant_scopes_any),
          CetpViews.terms(activity, noScope, now));
    }
  }

  /** Disables (or enables again) Remove access and Let it ask again while one is being saved. */
  void setBusy(boolean busy) {
    for (View button : actionButtons) {
      button.setEnabled(!busy);
    }
  }

  /** What the access log says about the grant's app. */
  private String history(JSONObject grant) {
    if (grant.isNull(Wire.ADMIN_KEY_LAST_ACCESS_MS)) {
      return activity.getString(R.string.cetp_history_never);
    }
    int day = (int) Math.min(Integer.MAX_VALUE, grant.optLong(Wire.ADMIN_KEY_CALLS_DAY));
    int week = (int) Math.min(Integer.MAX_VALUE, grant.optLong(Wire.ADMIN_KEY_CALLS_WEEK));
    return activity.getString(
        R.string.cetp_history,
        CetpViews.date(activity, grant.optLong(Wire.ADMIN_KEY_LAST_ACCESS_MS)),
        activity.getResources().getQuantityString(R.plurals.cetp_calls_today, day, day),
        activity.getResources().getQuantityString(R.plurals.cetp_calls_week, week, week));
  }

  private TextView text(int id) {
    return activity.findViewById(id);
  }
}
