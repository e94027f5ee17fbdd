package dev.cetp;

import android.app.Activity;
import android.graphics.Typeface;
import android.text.SpannableString;
import android.text.Spanned;
import android.text.style.StyleSpan;
import android.view.LayoutInflater;
import android.view.View;
import android.view.ViewGroup;
import android.widget.Button;
import android.widget.ImageView;
import android.widget.LinearLayout;
import android.widget.RadioGroup;
import android.widget.TextView;
import java.util.ArrayList;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * The consent dialog's content, from its layouts: one request ({@code cetp_consent}), the list of
 * every waiting request when Android did not say which app opened the dialog ({@code
 * cetp_requests}), nothing to decide ({@code cetp_consent_empty}) or still reading ({@code
 * cetp_loading}). It fills the views in; {@link CetpAuthorizeActivity} decides what to show.
 */
final class CetpConsentScreen {
  /** What the Activity does with the user's answer. */
  interface Decisions {
    void approve(JSONObject request, List<String> scopes, boolean limited, long durationSecs);

    void deny(JSONObject request);

    /** The user chose this request on the list of waiting requests. */
    void review(JSONObject request);

    /** Back from one request to the list of waiting requests. */
    void backToRequests();

    void openGrants();

    void close();
  }

  static final long HOUR_SECS = 3600;
  static final long DAY_SECS = 24 * HOUR_SECS;
  static final long MONTH_SECS = 30 * DAY_SECS;

  private final Activity activity;
  private final Decisions decisions;
  /** The controls of the request shown, disabled while a decision is being saved. */
  private final List<View> decisionControls = new ArrayList<>();
  private Button allow;
  /** What the request shown looked like (its id and scopes), or null. */
  private String shownRequest;

  CetpConsentScreen(Activity activity, Decisions decisions) {
    this.activity = activity;
    this.decisions = decisions;
  }

  /** While the provider's state is read. */
  void showLoading() {
    show(R.layout.cetp_loading);
  }

  /** Nothing to decide: {@code message} (no request, or the provider did not start) and Close. */
  void showEmpty(int message, String notice, boolean decisionsLost, boolean canManage) {
    show(R.layout.cetp_consent_empty);
    notices(notice, decisionsLost);
    text(R.id.cetp_empty).setText(message);
    activity.findViewById(R.id.cetp_close).setOnClickListener(v -> decisions.close());
    View manage = activity.findViewById(R.id.cetp_manage);
    manage.setVisibility(canManage ? View.VISIBLE : View.GONE);
    manage.setOnClickListener(v -> decisions.openGrants());
    announce(text(R.id.cetp_empty).getText());
  }

  /**
   * The dialog for {@code request} of a provider named {@code provider}; {@code limitedOffered}
   * shows the full / limited choice, {@code fromList} the way back to the list. Allow stays
   * disabled: the Activity enables it (see {@link #allowButton()}) after a short delay.
   */
  void showRequest(
      JSONObject request,
      String provider,
      boolean limitedOffered,
      String notice,
      boolean decisionsLost,
      boolean fromList) {
    show(R.layout.cetp_consent);
    shownRequest = identity(request);
    notices(notice, decisionsLost);
    JSONArray packages = CetpViews.array(request, "packages");
    List<String> labels = new ArrayList<>();
    for (int i = 0; i < packages.length(); i++) {
      labels.add(CetpViews.appLabel(activity, packages.optJSONObject(i).optString("name")));
    }
    String who = CetpViews.isolate(activity, String.join(", ", labels));

    ImageView icon = activity.findViewById(R.id.cetp_icon);
    if (packages.length() > 0) {
      CetpViews.showIcon(icon, packages.optJSONObject(0).optString("name"));
    } else {
      icon.setVisibility(View.GONE);
    }

    List<String> scopeNames = new ArrayList<>();
    String scopeWords = scopeWords(request, scopeNames);
    // The provider's own words are in the provider's language, which may not be the screen's.
    String providerName = CetpViews.isolate(activity, provider);
    String question =
        scopeWords.isEmpty()
            ? activity.getString(R.string.cetp_question_tools, who, providerName)
            : activity.getString(
                R.string.cetp_question, who, CetpViews.isolate(activity, scopeWords), providerName);
    TextView headline = text(R.id.cetp_question);
    headline.setText(bold(question, who));

    LinearLayout list = activity.findViewById(R.id.cetp_packages);
    LayoutInflater inflater = activity.getLayoutInflater();
    for (int i = 0; i < packages.length(); i++) {
      JSONObject p = packages.optJSONObject(i);
      View row = inflater.inflate(R.layout.cetp_consent_package, list, false);
      ((TextView) row.findViewById(R.id.cetp_package)).setText(p.optString("name"));
      CetpViews.showCertificate(row.findViewById(R.id.cetp_certificate), CetpViews.firstCertificate(p));
      list.addView(row);
    }
    list.setVisibility(packages.length() > 0 ? View.VISIBLE : View.GONE);
    activity.findViewById(R.id.cetp_shared_identity)
        .setVisibility(packages.length() > 1 ? View.VISIBLE : View.GONE);

    RadioGroup durations = activity.findViewById(R.id.cetp_durations);
    RadioGroup access = activity.findViewById(R.id.cetp_access);
    activity.findViewById(R.id.cetp_access_section)
        .setVisibility(limitedOffered ? View.VISIBLE : View.GONE);
    text(R.id.cetp_access_limited_help)
        .setText(activity.getString(R.string.cetp_access_limited_help, providerName));

    allow = activity.findViewById(R.id.cetp_allow);
    Button deny = activity.findViewById(R.id.cetp_deny);
    decisionControls.clear();
    decisionControls.add(allow);
    decisionControls.add(deny);
    for (RadioGroup group : new RadioGroup[] {durations, access}) {
      for (int i = 0; i < group.getChildCount(); i++) {
        decisionControls.add(group.getChildAt(i));
      }
    }
    CetpViews.guard(decisionControls.toArray(new View[0]));
    allow.setOnClickListener(
        v ->
            decisions.approve(
                request,
                scopeNames,
                limitedOffered && access.getCheckedRadioButtonId() == R.id.cetp_access_limited,
                duration(durations.getCheckedRadioButtonId())));
    deny.setOnClickListener(v -> decisions.deny(request));

    View back = activity.findViewById(R.id.cetp_back);
    View manage = activity.findViewById(R.id.cetp_manage);
    back.setVisibility(fromList ? View.VISIBLE : View.GONE);
    manage.setVisibility(fromList ? View.GONE : View.VISIBLE);
    back.setOnClickListener(v -> decisions.backToRequests());
    manage.setOnClickListener(v -> decisions.openGrants());
    announce(headline.getText());
  }

  /**
   * Every waiting request, none chosen for the user: each app with its icon, label, package and
   * certificate, what it asks for, and Review.
   */
  void showRequests(JSONArray pending, String provider, String notice, boolean decisionsLost) {
    show(R.layout.cetp_requests);
    notices(notice, decisionsLost);
    TextView title = text(R.id.cetp_requests_title);
    title.setText(
        activity
            .getResources()
            .getQuantityString(R.plurals.cetp_requests_title, pending.length(), pending.length(), provider));
    LinearLayout list = activity.findViewById(R.id.cetp_requests);
    LayoutInflater inflater = activity.getLayoutInflater();
    for (int i = 0; i < pending.length(); i++) {
      JSONObject request = pending.optJSONObject(i);
      if (request == null) {
        continue;
      }
      View item = inflater.inflate(R.layout.cetp_request_item, list, false);
      JSONArray packages = CetpViews.array(request, "packages");
      JSONObject first = packages.optJSONObject(0);
      String pkg = first == null ? "" : first.optString("name");
      CetpViews.showApp(item, pkg, first == null ? null : CetpViews.firstCertificate(first));
      if (packages.length() > 1) {
        List<String> labels = new ArrayList<>();
        for (int p = 0; p < packages.length(); p++) {
          labels.add(CetpViews.appLabel(activity, packages.optJSONObject(p).optString("name")));
        }
        ((TextView) item.findViewById(R.id.cetp_app_label)).setText(String.join(", ", labels));
      }
      String words = scopeWords(request, new ArrayList<>());
      ((TextView) item.findViewById(R.id.cetp_request_scopes))
          .setText(
              words.isEmpty()
                  ? activity.getString(R.string.cetp_request_scopes_any)
                  : activity.getString(R.string.cetp_request_scopes, words));
      item.findViewById(R.id.cetp_review).setOnClickListener(v -> decisions.review(request));
      list.addView(item);
    }
    activity.findViewById(R.id.cetp_close).setOnClickListener(v -> decisions.close());
    activity.findViewById(R.id.cetp_manage).setOnClickListener(v -> decisions.openGrants());
    announce(title.getText());
  }

  /**
   * Whether {@code request} is shown now as it is (same id, same scopes), so the user's choices
   * on it may stay.
   */
  boolean isShowing(JSONObject request) {
    return shownRequest != null && shownRequest.equals(identity(request));
  }

  private static String identity(JSONObject request) {
    return request.optString("id") + " " + CetpViews.array(request, "scopes");
  }

  /** The Allow button of the request shown, or null. */
  Button allowButton() {
    return allow;
  }

  /** Disables (or enables again) the decision controls while a decision is being saved. */
  void setDeciding(boolean deciding) {
    for (View control : decisionControls) {
      control.setEnabled(!deciding);
    }
  }

  private void show(int layout) {
    allow = null;
    shownRequest = null;
    decisionControls.clear();
    activity.setContentView(layout);
    int margin = activity.getResources().getDimensionPixelSize(R.dimen.cetp_dialog_margin);
    int max = activity.getResources().getDimensionPixelSize(R.dimen.cetp_dialog_max_width);
    int width = activity.getResources().getDisplayMetrics().widthPixels - 2 * margin;
    activity.getWindow().setLayout(Math.min(width, max), ViewGroup.LayoutParams.WRAP_CONTENT);
  }

  /** What TalkBack announces when the dialog opens: its question, or why there is none. */
  private void announce(CharSequence title) {
    activity.setTitle(title);
  }

  private void notices(String notice, boolean decisionsLost) {
    TextView message = text(R.id.cetp_message);
    message.setText(notice);
    message.setVisibility(notice != null ? View.VISIBLE : View.GONE);
    text(R.id.cetp_decisions_lost).setVisibility(decisionsLost ? View.VISIBLE : View.GONE);
  }

  private TextView text(int id) {
    return activity.findViewById(id);
  }

  /** The request's scopes in the provider's words, comma-separated; their names into {@code names}. */
  private static String scopeWords(JSONObject request, List<String> names) {
    JSONArray scopes = CetpViews.array(request, "scopes");
    List<String> words = new ArrayList<>();
    for (int i = 0; i < scopes.length(); i++) {
      JSONObject scope = scopes.optJSONObject(i);
      names.add(scope.optString("name"));
      String description = scope.optString("description");
      words.add(description.isEmpty() ? scope.optString("name") : description);
    }
    return String.join(", ", words);
  }

  private static long duration(int checked) {
    if (checked == R.id.cetp_duration_hour) {
      return HOUR_SECS;
    }
    if (checked == R.id.cetp_duration_day) {
      return DAY_SECS;
    }
    if (checked == R.id.cetp_duration_month) {
      return MONTH_SECS;
    }
    return 0;
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
