package dev.cetp;

import android.graphics.Typeface;
import android.view.Gravity;
import android.view.View;
import android.widget.Button;
import android.widget.LinearLayout;
import android.widget.TextView;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * Apps with access: every allowed app with what it may read, how much, until when, and when it
 * last read and how often (the provider's on-device access log); every declined app; and the
 * actions Remove access and Let it ask again.
 */
final class CetpGrantsScreen {
  /** What the Activity does with the user's actions. */
  interface Actions {
    void revoke(String pkg, String certificate);

    void clearDenial(String pkg, String certificate);
  }

  private final CetpWidgets w;

  CetpGrantsScreen(CetpWidgets widgets) {
    this.w = widgets;
  }

  View build(JSONObject state, String notice, boolean decisionsLost, Actions actions) {
    LinearLayout page = w.column();
    page.setPadding(w.dp(16), w.dp(24), w.dp(16), w.dp(24));
    String provider = state.optString("provider_name");
    TextView title = w.headline(w.s("cetp_manage_title", provider), 24);
    title.setTag("cetp:title");
    page.addView(title, CetpWidgets.matchWidth());
    TextView intro = w.secondaryText(w.s("cetp_manage_intro", provider));
    page.addView(intro, CetpWidgets.matchWidth(w.dp(8)));
    if (notice != null) {
      TextView n = w.body(notice);
      n.setTag("cetp:message");
      n.setTypeface(Typeface.DEFAULT_BOLD);
      page.addView(n, CetpWidgets.matchWidth(w.dp(16)));
    }
    if (decisionsLost) {
      TextView lost = w.body(w.s("cetp_decisions_lost"));
      lost.setTag("cetp:decisions_lost");
      lost.setTypeface(Typeface.DEFAULT_BOLD);
      page.addView(lost, CetpWidgets.matchWidth(w.dp(16)));
    }

    Map<String, String> scopeWords = new LinkedHashMap<>();
    JSONArray declared = CetpWidgets.array(state, "scopes");
    for (int i = 0; i < declared.length(); i++) {
      JSONObject scope = declared.optJSONObject(i);
      String description = scope.optString("description");
      scopeWords.put(scope.optString("name"), description.isEmpty() ? scope.optString("name") : description);
    }
    long now = state.optLong("now_ms", System.currentTimeMillis());

    page.addView(w.sectionLabel(w.s("cetp_grants_header")), CetpWidgets.matchWidth(w.dp(8)));
    JSONArray grants = CetpWidgets.array(state, "grants");
    if (grants.length() == 0) {
      page.addView(w.body(w.s("cetp_no_grants")), CetpWidgets.matchWidth());
    }
    for (int n = 0; n < grants.length(); n++) {
      JSONObject grant = grants.optJSONObject(n);
      String pkg = grant.optString("package");
      String cert = grant.isNull("certificate_sha256") ? null : grant.optString("certificate_sha256");
      LinearLayout card = card(pkg, cert, n);
      JSONArray scopes = CetpWidgets.array(grant, "scopes");
      List<String> words = new ArrayList<>();
      for (int i = 0; i < scopes.length(); i++) {
        String scope = scopes.optString(i);
        String described = scopeWords.get(scope);
        words.add(described == null ? scope : described);
      }
      card.addView(
          w.body(
              words.isEmpty()
                  ? w.s("cetp_grant_scopes_any")
                  : w.s("cetp_grant_scopes", String.join(", ", words))),
          CetpWidgets.matchWidth(w.dp(8)));
      String level =
          "limited".equals(grant.optString("access"))
              ? w.s("cetp_grant_access_limited")
              : w.s("cetp_grant_access_full");
      String until;
      if (grant.isNull("expires_at_ms") || !grant.has("expires_at_ms")) {
        until = w.s("cetp_grant_forever");
      } else {
        long expires = grant.optLong("expires_at_ms");
        until =
            expires <= now
                ? w.s("cetp_grant_expired", CetpWidgets.date(expires))
                : w.s("cetp_grant_until", CetpWidgets.date(expires));
      }
      card.addView(w.secondaryText(w.s("cetp_grant_terms", level, until)), CetpWidgets.matchWidth(w.dp(4)));
      TextView history = w.secondaryText(history(grant));
      history.setTag("cetp:history:" + n);
      card.addView(history, CetpWidgets.matchWidth(w.dp(4)));
      Button revoke = w.outlinedButton(w.s("cetp_revoke"), "cetp:revoke:" + n);
      revoke.setOnClickListener(v -> actions.revoke(pkg, cert));
      card.addView(revoke, wrapStart(w.dp(12)));
      page.addView(card, CetpWidgets.matchWidth(w.dp(8)));
    }

    page.addView(w.sectionLabel(w.s("cetp_denials_header")), CetpWidgets.matchWidth(w.dp(16)));
    JSONArray denials = CetpWidgets.array(state, "denials");
    if (denials.length() == 0) {
      page.addView(w.body(w.s("cetp_no_denials")), CetpWidgets.matchWidth());
    }
    for (int n = 0; n < denials.length(); n++) {
      JSONObject denial = denials.optJSONObject(n);
      String pkg = denial.optString("package");
      String cert = denial.isNull("certificate_sha256") ? null : denial.optString("certificate_sha256");
      LinearLayout card = card(pkg, cert, grants.length() + n);
      card.addView(
          w.secondaryText(w.s("cetp_denied_on", CetpWidgets.date(denial.optLong("denied_at_ms")))),
          CetpWidgets.matchWidth(w.dp(8)));
      Button again = w.outlinedButton(w.s("cetp_allow_again"), "cetp:allow_again:" + n);
      again.setOnClickListener(v -> actions.clearDenial(pkg, cert));
      card.addView(again, wrapStart(w.dp(12)));
      page.addView(card, CetpWidgets.matchWidth(w.dp(8)));
    }
    return page;
  }

  /** What the access log says about the grant's app. */
  private String history(JSONObject grant) {
    if (!grant.has("last_access_ms") || grant.isNull("last_access_ms")) {
      return w.s("cetp_history_never");
    }
    return w.s(
        "cetp_history",
        CetpWidgets.date(grant.optLong("last_access_ms")),
        grant.optLong("calls_day"),
        grant.optLong("calls_week"));
  }

  /** A card with the app's icon, label, package and certificate. */
  private LinearLayout card(String pkg, String cert, int n) {
    LinearLayout card = w.column();
    card.setBackground(w.rounded(w.tonal, 16));
    card.setPadding(w.dp(16), w.dp(16), w.dp(16), w.dp(16));
    LinearLayout header = new LinearLayout(w.context);
    header.setOrientation(LinearLayout.HORIZONTAL);
    header.setGravity(Gravity.CENTER_VERTICAL);
    View icon = w.appIcon(pkg, 40);
    header.addView(icon);
    LinearLayout names = w.column();
    names.setPaddingRelative(w.dp(16), 0, 0, 0);
    TextView label = w.body(w.appLabel(pkg));
    label.setTypeface(Typeface.create("sans-serif-medium", Typeface.NORMAL));
    label.setTag("cetp:app:" + n);
    names.addView(label, CetpWidgets.matchWidth());
    TextView packageName = w.secondaryText(pkg);
    packageName.setTextDirection(View.TEXT_DIRECTION_LTR);
    names.addView(packageName, CetpWidgets.matchWidth());
    names.addView(w.certificateLine(cert, "cetp:certificate:" + n), CetpWidgets.matchWidth());
    header.addView(names, new LinearLayout.LayoutParams(0, LinearLayout.LayoutParams.WRAP_CONTENT, 1));
    card.addView(header, CetpWidgets.matchWidth());
    return card;
  }

  private static LinearLayout.LayoutParams wrapStart(int top) {
    LinearLayout.LayoutParams p =
        new LinearLayout.LayoutParams(
            LinearLayout.LayoutParams.WRAP_CONTENT, LinearLayout.LayoutParams.WRAP_CONTENT);
    p.topMargin = top;
    p.gravity = Gravity.START;
    return p;
  }
}
