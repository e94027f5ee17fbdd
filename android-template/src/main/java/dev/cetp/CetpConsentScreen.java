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
import java.util.Map;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * The consent dialog's content, from its layouts: one request ({@code cetp_consent}), with what
 * the app already has above the question; the list of every waiting request when Android did
 * not say which app opened the dialog ({@code cetp_requests}), each with when it asked and when
 * it lapses; nothing to decide ({@code cetp_consent_empty}) or still reading ({@code
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
  /** What the request shown looked like (its id, its scopes, what the app had), or null. */
  private String shownRequest;
  /** On the list of waiting requests: each one's line saying when it asked and lapses. */
  private final List<TextView> whenLines = new ArrayList<>();
  private final List<JSONObject> whenRequests = new ArrayList<>();

  CetpConsentScreen(Activity activity, Decisions decisions) {
    this.activity = activity;
    this.decisions = decisions;
  }

  /** While the provider's state is read. */
  void showLoading() {
    show(R.layout.cetp_loading);
  }

  /** Nothing to decide: {@code message} (no request, or the provider did not start) and Close. */
  void showEmpty(
      int message, String notice, boolean decisionsLost, boolean unsaved, boolean canManage) {
    show(R.layout.cetp_consent_empty);
    notices(notice, decisionsLost, unsaved);
    text(R.id.cetp_empty).setText(message);
    activity.findViewById(R.id.cetp_close).setOnClickListener(v -> decisions.close());
    View manage = activity.findViewById(R.id.cetp_manage);
    manage.setVisibility(canManage ? View.VISIBLE : View.GONE);
    manage.setOnClickListener(v -> decisions.openGrants());
    announce(text(R.id.cetp_empty).getText());
  }

  /**
   * The dialog for {@code request}, read from {@code state} (the admin JSON: the provider's name,
   * whether it offers limited access, what the requesting app already has, whether a change is
   * not saved yet); {@code fromList} shows the way back to the list. One line says what Allow
   * gives (how much, for how long); the choices themselves, and what Limited means, show after
   * More options. Allow stays disabled: the Activity enables it (see {@link #allowButton()})
   * after a short delay.
   */
  void showRequest(
      JSONObject request,
      JSONObject state,
      String notice,
      boolean decisionsLost,
      boolean fromList) {
    String provider = state.optString(Wire.ADMIN_KEY_PROVIDER_NAME);
    boolean limitedOffered = state.optBoolean(Wire.ADMIN_KEY_OFFERS_LIMITED_ACCESS, true);
    List<String[]> held = held(state, request);
    boolean unsaved = state.optBoolean(Wire.ADMIN_KEY_UNSAVED_CHANGES);
    show(R.layout.cetp_consent);
    shownRequest = identity(request, held, unsaved);
    notices(notice, decisionsLost, unsaved);
    JSONArray packages = CetpViews.array(request, Wire.ADMIN_KEY_PACKAGES);
    List<String> labels = new ArrayList<>();
    for (int i = 0; i < packages.length(); i++) {
      labels.add(CetpViews.appLabel(activity, packages.optJSONObject(i).optString(Wire.ADMIN_KEY_NAME)));
    }
    String who = CetpViews.isolate(activity, String.join(", ", labels));

    ImageView icon = activity.findViewById(R.id.cetp_icon);
    if (packages.length() > 0) {
      CetpViews.showIcon(icon, packages.optJSONObject(0).optString(Wire.ADMIN_KEY_NAME));
    } else {
      icon.setVisibility(View.GONE);
    }

    LinearLayout heldRows = activity.findViewById(R.id.cetp_held_scopes);
    for (String[] row : held) {
      CetpViews.addScopeRow(heldRows, row[0], row[1]);
    }
    activity.findViewById(R.id.cetp_held).setVisibility(held.isEmpty() ? View.GONE : View.VISIBLE);

    List<String> scopeNames = new ArrayList<>();
    String scopeWords = scopeWords(request, scopeNames);
    // The provider's own words are in the provider's language, which may not be the screen's.
    String providerName = CetpViews.isolate(activity, provider);
    String question;
    if (scopeWords.isEmpty()) {
      question = activity.getString(R.string.cetp_question_tools, who, providerName);
    } else {
      question =
          activity.getString(
              request.optBoolean(Wire.ADMIN_KEY_ASKS_FOR_MORE)
                  ? R.string.cetp_question_more
                  : R.string.cetp_question,
              who,
              CetpViews.isolate(activity, scopeWords),
              providerName);
    }
    TextView headline = text(R.id.cetp_question);
    headline.setText(bold(question, who));

    LinearLayout list = activity.findViewById(R.id.cetp_packages);
    LayoutInflater inflater = activity.getLayoutInflater();
    for (int i = 0; i < packages.length(); i++) {
      JSONObject p = packages.optJSONObject(i);
      View row = inflater.inflate(R.layout.cetp_consent_package, list, false);
      ((TextView) row.findViewById(R.id.cetp_package)).setText(p.optString(Wire.ADMIN_KEY_NAME));
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
    TextView summary = text(R.id.cetp_choices_summary);
    Runnable summarize =
        () ->
            summary.setText(
                activity.getString(
                    R.string.cetp_grant_terms,
                    activity.getString(
                        limitedOffered && access.getCheckedRadioButtonId() == R.id.cetp_access_limited
                            ? R.string.cetp_grant_access_limited
                            : R.string.cetp_grant_access_full),
                    ((TextView) activity.findViewById(durations.getCheckedRadioButtonId()))
                        .getText()));
    summarize.run();
    durations.setOnCheckedChangeListener((group, id) -> summarize.run());
    access.setOnCheckedChangeListener((group, id) -> summarize.run());
    View details = activity.findViewById(R.id.cetp_details);
    Button more = activity.findViewById(R.id.cetp_more);
    more.setOnClickListener(
        v -> {
          boolean open = details.getVisibility() != View.VISIBLE;
          details.setVisibility(open ? View.VISIBLE : View.GONE);
          summary.setVisibility(open ? View.GONE : View.VISIBLE);
          more.setText(open ? R.string.cetp_fewer_options : R.string.cetp_more_options);
        });

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
   * certificate, what it asks for, when it asked and when the request lapses (at {@code now}, the
   * provider's clock), and Review.
   */
  void showRequests(
      JSONArray pending,
      String provider,
      long now,
      String notice,
      boolean decisionsLost,
      boolean unsaved) {
    show(R.layout.cetp_requests);
    notices(notice, decisionsLost, unsaved);
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
      JSONArray packages = CetpViews.array(request, Wire.ADMIN_KEY_PACKAGES);
      JSONObject first = packages.optJSONObject(0);
      String pkg = first == null ? "" : first.optString(Wire.ADMIN_KEY_NAME);
      CetpViews.showApp(item, pkg, first == null ? null : CetpViews.firstCertificate(first));
      if (packages.length() > 1) {
        List<String> labels = new ArrayList<>();
        for (int p = 0; p < packages.length(); p++) {
          labels.add(
              CetpViews.appLabel(activity, packages.optJSONObject(p).optString(Wire.ADMIN_KEY_NAME)));
        }
        ((TextView) item.findViewById(R.id.cetp_app_label)).setText(String.join(", ", labels));
      }
      String words = scopeWords(request, new ArrayList<>());
      ((TextView) item.findViewById(R.id.cetp_request_scopes))
          .setText(
              words.isEmpty()
                  ? activity.getString(R.string.cetp_request_scopes_any)
                  : activity.getString(R.string.cetp_request_scopes, words));
      TextView when = item.findViewById(R.id.cetp_request_when);
      when.setText(when(request, now));
      whenLines.add(when);
      whenRequests.add(request);
      item.findViewById(R.id.cetp_review).setOnClickListener(v -> decisions.review(request));
      list.addView(item);
    }
    activity.findViewById(R.id.cetp_close).setOnClickListener(v -> decisions.close());
    activity.findViewById(R.id.cetp_manage).setOnClickListener(v -> decisions.openGrants());
    announce(title.getText());
  }

  /**
   * On the list of waiting requests: says again when each asked and when it lapses, at {@code
   * now} (the provider's clock, as the Activity reckons it since the state was read).
   */
  void updateTimes(long now) {
    for (int i = 0; i < whenLines.size(); i++) {
      whenLines.get(i).setText(when(whenRequests.get(i), now));
    }
  }

  /**
   * <i>Asked 2 minutes ago · expires in 8 minutes</i>: when {@code request} was last asked for,
   * and when it lapses unless the app asks again.
   */
  private String when(JSONObject request, long now) {
    long ago = Math.max(0, now - request.optLong(Wire.ADMIN_KEY_REQUESTED_AT_MS, now));
    int minutes = minutes(ago / CetpViews.MINUTE_MS);
    String asked =
        minutes == 0
            ? activity.getString(R.string.cetp_request_asked_now)
            : quantity(R.plurals.cetp_request_asked, minutes);
    long expires = request.optLong(Wire.ADMIN_KEY_EXPIRES_AT_MS, 0);
    if (expires <= 0) {
      return asked;
    }
    // Rounded up: "in 1 minute" until it lapses.
    long left = Math.max(0, expires - now);
    int inMinutes = Math.max(1, minutes((left + CetpViews.MINUTE_MS - 1) / CetpViews.MINUTE_MS));
    return activity.getString(
        R.string.cetp_request_when, asked, quantity(R.plurals.cetp_request_expires, inMinutes));
  }

  private static int minutes(long count) {
    return (int) Math.min(Integer.MAX_VALUE, count);
  }

  private String quantity(int plurals, int count) {
    return activity.getResources().getQuantityString(plurals, count, count);
  }

  /**
   * Whether {@code request} is shown now as it is (same id, same scopes, the app having the same
   * as before), so the user's choices on it may stay.
   */
  boolean isShowing(JSONObject request, JSONObject state) {
    return shownRequest != null
        && shownRequest.equals(
            identity(
                request, held(state, request), state.optBoolean(Wire.ADMIN_KEY_UNSAVED_CHANGES)));
  }

  private static String identity(JSONObject request, List<String[]> held, boolean unsaved) {
    StringBuilder out =
        new StringBuilder(request.optString(Wire.ADMIN_KEY_ID))
            .append(unsaved ? " unsaved " : " ")
            .append(CetpViews.array(request, Wire.ADMIN_KEY_SCOPES));
    for (String[] row : held) {
      out.append('\n').append(row[0]).append(' ').append(row[1]);
    }
    return out.toString();
  }

  /**
   * What the app that made {@code request} already has, as rows of (what, access and expiry): the
   * request's {@code holds} as the provider decided it (scopes in force for its own packages and
   * certificates, in the provider's order, then the tools that need no scope).
   */
  private List<String[]> held(JSONObject state, JSONObject request) {
    long now = state.optLong(Wire.ADMIN_KEY_NOW_MS, System.currentTimeMillis());
    JSONObject holds = request.optJSONObject(Wire.ADMIN_KEY_HOLDS);
    List<String[]> rows = new ArrayList<>();
    if (holds == null) {
      return rows;
    }
    Map<String, String> words = CetpGrantsScreen.scopeWords(state);
    JSONArray scopes = CetpViews.array(holds, Wire.ADMIN_KEY_SCOPES);
    for (int i = 0; i < scopes.length(); i++) {
      JSONObject entry = scopes.optJSONObject(i);
      String scope = entry.optString(Wire.ADMIN_KEY_SCOPE);
      String described = words.get(scope);
      rows.add(
          new String[] {
            activity.getString(
                R.string.cetp_grant_scopes,
                CetpViews.isolate(activity, described == null ? scope : described)),
            CetpViews.terms(activity, entry, now)
          });
    }
    JSONObject noScope = holds.optJSONObject(Wire.ADMIN_KEY_NO_SCOPE);
    if (noScope != null) {
      rows.add(
          new String[] {
            activity.getString(R.string.cetp_grant_scopes_any),
            CetpViews.terms(activity, noScope, now)
          });
    }
    return rows;
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
    whenLines.clear();
    whenRequests.clear();
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

  /**
   * The notices on top: why the last action failed ({@code notice}, or null), that stored
   * decisions were lost, that a change is in force but not saved yet ({@code unsaved}: the
   * state's {@code unsaved_changes}).
   */
  private void notices(String notice, boolean decisionsLost, boolean unsaved) {
    TextView message = text(R.id.cetp_message);
    message.setText(notice);
    message.setVisibility(notice != null ? View.VISIBLE : View.GONE);
    text(R.id.cetp_decisions_lost).setVisibility(decisionsLost ? View.VISIBLE : View.GONE);
    text(R.id.cetp_unsaved_changes).setVisibility(unsaved ? View.VISIBLE : View.GONE);
  }

  private TextView text(int id) {
    return activity.findViewById(id);
  }

  /** The request's scopes in the provider's words, comma-separated; their names into {@code names}. */
  private static String scopeWords(JSONObject request, List<String> names) {
    JSONArray scopes = CetpViews.array(request, Wire.ADMIN_KEY_SCOPES);
    List<String> words = new ArrayList<>();
    for (int i = 0; i < scopes.length(); i++) {
      JSONObject scope = scopes.optJSONObject(i);
      String name = scope.optString(Wire.ADMIN_KEY_NAME);
      names.add(name);
      String description = scope.optString(Wire.ADMIN_KEY_DESCRIPTION);
      words.add(description.isEmpty() ? name : description);
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
