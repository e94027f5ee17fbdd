package dev.cetp;

import android.graphics.Typeface;
import android.text.SpannableString;
import android.text.Spanned;
import android.text.style.StyleSpan;
import android.view.Gravity;
import android.view.View;
import android.widget.Button;
import android.widget.LinearLayout;
import android.widget.RadioButton;
import android.widget.RadioGroup;
import android.widget.TextView;
import java.util.ArrayList;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * The consent dialog for one pending request, laid out like the platform's permission dialog: the
 * caller's icon, one question naming the app, the data and the provider, the app's package and
 * certificate, the duration and access choices as 48 dp rows, then Allow and Don't allow.
 */
final class CetpConsentScreen {
  /** What the Activity does with the user's answer. */
  interface Decisions {
    void approve(String id, List<String> scopes, boolean limited, long durationSecs);

    void deny(String id);

    void openGrants();

    void close();
  }

  static final long HOUR_SECS = 3600;
  static final long DAY_SECS = 24 * HOUR_SECS;
  static final long MONTH_SECS = 30 * DAY_SECS;

  private final CetpWidgets w;

  CetpConsentScreen(CetpWidgets widgets) {
    this.w = widgets;
  }

  /** The dialog's content: padding, and the notice on top when there is one. */
  private LinearLayout page(String notice, boolean decisionsLost) {
    LinearLayout page = w.column();
    page.setPadding(w.dp(24), w.dp(24), w.dp(24), w.dp(16));
    if (notice != null) {
      page.addView(notice(notice, "cetp:message"), CetpWidgets.matchWidth());
    }
    if (decisionsLost) {
      page.addView(notice(w.s("cetp_decisions_lost"), "cetp:decisions_lost"), CetpWidgets.matchWidth());
    }
    return page;
  }

  private TextView notice(String text, String tag) {
    TextView view = w.body(text);
    view.setTag(tag);
    view.setTypeface(Typeface.DEFAULT_BOLD);
    view.setPadding(0, 0, 0, w.dp(16));
    return view;
  }

  /** Nothing to decide: {@code message} (no request, or the provider did not start) and Close. */
  View empty(String message, String notice, boolean decisionsLost, Decisions decisions, boolean canManage) {
    LinearLayout page = page(notice, decisionsLost);
    TextView text = w.body(message);
    text.setTag("cetp:empty");
    page.addView(text, CetpWidgets.matchWidth());
    Button close = w.navigationButton(w.s("cetp_close"), "cetp:close");
    close.setOnClickListener(v -> decisions.close());
    LinearLayout.LayoutParams p = CetpWidgets.matchWidth(w.dp(16));
    page.addView(close, p);
    if (canManage) {
      page.addView(manageButton(decisions), CetpWidgets.matchWidth());
    }
    return page;
  }

  private Button manageButton(Decisions decisions) {
    Button manage = w.navigationButton(w.s("cetp_manage_button"), "cetp:manage");
    manage.setOnClickListener(v -> decisions.openGrants());
    return manage;
  }

  /**
   * The dialog for {@code request} of a provider named {@code provider}; {@code limitedOffered}
   * shows the full / limited choice. The Allow button is returned disabled: the Activity enables it
   * after a short delay.
   */
  View request(
      JSONObject request,
      String provider,
      boolean limitedOffered,
      String notice,
      boolean decisionsLost,
      Decisions decisions) {
    LinearLayout page = page(notice, decisionsLost);
    String id = request.optString("id");
    JSONArray packages = CetpWidgets.array(request, "packages");
    List<String> labels = new ArrayList<>();
    for (int i = 0; i < packages.length(); i++) {
      labels.add(w.appLabel(packages.optJSONObject(i).optString("name")));
    }
    String who = CetpWidgets.isolate(String.join(", ", labels));

    if (packages.length() > 0) {
      View icon = w.appIcon(packages.optJSONObject(0).optString("name"), 40);
      LinearLayout.LayoutParams p = (LinearLayout.LayoutParams) icon.getLayoutParams();
      p.gravity = Gravity.CENTER_HORIZONTAL;
      p.bottomMargin = w.dp(16);
      page.addView(icon, p);
    }

    JSONArray scopes = CetpWidgets.array(request, "scopes");
    List<String> scopeNames = new ArrayList<>();
    List<String> scopeWords = new ArrayList<>();
    for (int i = 0; i < scopes.length(); i++) {
      JSONObject scope = scopes.optJSONObject(i);
      scopeNames.add(scope.optString("name"));
      String description = scope.optString("description");
      scopeWords.add(description.isEmpty() ? scope.optString("name") : description);
    }
    String question =
        scopeWords.isEmpty()
            ? w.s("cetp_question_tools", who, provider)
            : w.s("cetp_question", who, String.join(", ", scopeWords), provider);
    TextView headline = w.headline(bold(question, who), 22);
    headline.setTag("cetp:question");
    headline.setGravity(Gravity.CENTER_HORIZONTAL);
    headline.setTextAlignment(View.TEXT_ALIGNMENT_CENTER);
    page.addView(headline, CetpWidgets.matchWidth());

    for (int i = 0; i < packages.length(); i++) {
      JSONObject p = packages.optJSONObject(i);
      TextView name = w.body(p.optString("name"));
      name.setTag("cetp:package:" + i);
      name.setTextDirection(View.TEXT_DIRECTION_LTR);
      name.setTextAlignment(View.TEXT_ALIGNMENT_CENTER);
      name.setGravity(Gravity.CENTER_HORIZONTAL);
      name.setTypeface(Typeface.create("sans-serif-medium", Typeface.NORMAL));
      page.addView(name, CetpWidgets.matchWidth(w.dp(i == 0 ? 16 : 8)));
      TextView cert = w.certificateLine(CetpWidgets.firstCertificate(p), "cetp:certificate:" + i);
      cert.setGravity(Gravity.CENTER);
      cert.setTextAlignment(View.TEXT_ALIGNMENT_CENTER);
      page.addView(cert, CetpWidgets.matchWidth());
    }
    if (packages.length() > 1) {
      TextView shared = w.secondaryText(w.s("cetp_shared_identity"));
      shared.setTextAlignment(View.TEXT_ALIGNMENT_CENTER);
      page.addView(shared, CetpWidgets.matchWidth(w.dp(8)));
    }

    page.addView(w.sectionLabel(w.s("cetp_duration_label")), CetpWidgets.matchWidth(w.dp(8)));
    RadioGroup durations = new RadioGroup(w.context);
    RadioButton hour = w.choice(durations, w.s("cetp_duration_hour"), "cetp:duration:hour");
    RadioButton day = w.choice(durations, w.s("cetp_duration_day"), "cetp:duration:day");
    RadioButton month = w.choice(durations, w.s("cetp_duration_month"), "cetp:duration:month");
    w.choice(durations, w.s("cetp_duration_forever"), "cetp:duration:forever");
    durations.check(day.getId());
    page.addView(durations, CetpWidgets.matchWidth());

    RadioButton limited = null;
    if (limitedOffered) {
      page.addView(w.sectionLabel(w.s("cetp_access_label")), CetpWidgets.matchWidth());
      RadioGroup access = new RadioGroup(w.context);
      RadioButton full = w.choice(access, w.s("cetp_access_full"), "cetp:access:full");
      limited = w.choice(access, w.s("cetp_access_limited"), "cetp:access:limited");
      access.check(full.getId());
      page.addView(access, CetpWidgets.matchWidth());
      TextView help = w.secondaryText(w.s("cetp_access_limited_help", provider));
      help.setPadding(w.dp(12), 0, 0, 0);
      page.addView(help, CetpWidgets.matchWidth());
    }

    Button allow = w.button(w.s("cetp_allow"), "cetp:allow", true);
    allow.setEnabled(false);
    RadioButton limitedChoice = limited;
    allow.setOnClickListener(
        v -> {
          long secs =
              hour.isChecked() ? HOUR_SECS : day.isChecked() ? DAY_SECS : month.isChecked() ? MONTH_SECS : 0;
          decisions.approve(id, scopeNames, limitedChoice != null && limitedChoice.isChecked(), secs);
        });
    page.addView(allow, CetpWidgets.matchWidth(w.dp(24)));
    Button deny = w.button(w.s("cetp_deny"), "cetp:deny", false);
    deny.setOnClickListener(v -> decisions.deny(id));
    page.addView(deny, CetpWidgets.matchWidth(w.dp(8)));
    page.addView(manageButton(decisions), CetpWidgets.matchWidth(w.dp(4)));
    return page;
  }

  /** {@code text} with the first occurrence of {@code part} in bold. */
  private static CharSequence bold(String text, String part) {
    SpannableString out = new SpannableString(text);
    int at = text.indexOf(part);
    if (at >= 0 && !part.isEmpty()) {
      out.setSpan(new StyleSpan(Typeface.BOLD), at, at + part.length(), Spanned.SPAN_EXCLUSIVE_EXCLUSIVE);
    }
    return out;
  }
}
