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
import android.widget.Toast;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.NullUnmarked;

/**
 * The consent dialog's content, from its layouts: one request ({@code cetp_consent}), with what
 * the app already has above the question; the list of every waiting request when Android did
 * not say which app opened the dialog ({@code cetp_requests}), each with when it asked and when
 * it lapses; nothing to decide ({@code cetp_consent_empty}) or still reading ({@code
 * cetp_loading}). It fills the views in; {@link CetpAuthorizeActivity} decides what to show.
 */
@NullUnmarked
final class CetpConsentScreen {
  /** What the Activity does with the user's answer. */
  interface Decisions {
    void approve(
        CetpAdminState.PendingRequest request, List<String> scopes, boolean limited, long durationSecs);

    void deny(CetpAdminState.PendingRequest request);

    /** The user chose this request on the list of waiting requests. */
    void review(CetpAdminState.PendingRequest request);

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
  private final List<CetpAdminState.PendingRequest> whenRequests = new ArrayList<>();

  CetpConsentScreen(Activity activity, Decisions decisions) {
    this.activity = activity;
    this.decisions = decisions;
  }

  /**
   * Shows what {@code plan} says of {@code state} ({@code decisionsLost} as the reply said): nothing
   * to decide, the list, or one request (left as it is when {@code plan} allows and it is
   * unchanged, so the user's choices on it stay; Allow enabled after {@link
   * CetpAuthorizeActivity#ALLOW_ENABLE_DELAY_MS} unless {@code controller} is saving a decision).
   */
  void render(
      CetpConsentController.Plan plan,
      CetpAdminState state,
      boolean decisionsLost,
      CetpConsentController controller) {
    String notice = words(plan.notice);
    boolean unsaved = state != null && state.unsavedChanges;
    switch (plan.show) {
      case UNAVAILABLE:
        showEmpty(R.string.cetp_unavailable, notice, false, false, false);
        return;
      case NOTHING:
        showEmpty(R.string.cetp_no_pending, notice, decisionsLost, unsaved, true);
        return;
      case LIST:
        showRequests(state.pending, state.providerName, state.nowMs, notice, decisionsLost, unsaved);
        return;
      case REQUEST:
        if (plan.mayKeep && isShowing(plan.request, state)) {
          return;
        }
        showRequest(plan.request, state, notice, decisionsLost, controller.listing());
        enableAllowAfter(CetpAuthorizeActivity.ALLOW_ENABLE_DELAY_MS, controller);
        return;
      default:
        break;
    }
  }

  /** While the provider's state is read. */
  void showLoading() {
    show(R.layout.cetp_loading);
  }

  /** Nothing to decide: {@code message} (no request, or the provider did not start) and Close. */
  private void showEmpty(
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
   * The dialog for {@code request}, with what {@code state} says (the provider's name, whether it
   * offers limited access, whether a change is not saved yet); {@code fromList} shows the way back to the list. One line says what Allow
   * gives (how much, for how long); the choices themselves, and what Limited means, show after
   * More options. Allow stays disabled until {@link #enableAllowAfter}.
   */
  private void showRequest(
      CetpAdminState.PendingRequest request,
      CetpAdminState state,
      String notice,
      boolean decisionsLost,
      boolean fromList) {
    String provider = state.providerName;
    boolean limitedOffered = state.offersLimitedAccess;
    List<CetpAdminState.ScopeAccess> held = held(request);
    boolean unsaved = state.unsavedChanges;
    show(R.layout.cetp_consent);
    shownRequest = identity(request, state);
    notices(notice, decisionsLost, unsaved);
    List<CetpAdminState.App> packages = request.packages;
    String who = CetpFormat.isolate(activity, labels(packages));

    ImageView icon = activity.findViewById(R.id.cetp_icon);
    if (!packages.isEmpty()) {
      CetpViews.showIcon(icon, packages.get(0).pkg);
    } else {
      icon.setVisibility(View.GONE);
    }

    LinearLayout heldRows = activity.findViewById(R.id.cetp_held_scopes);
    for (CetpAdminState.ScopeAccess entry : held) {
      CetpViews.addScopeRow(activity, heldRows, state, entry);
    }
    activity.findViewById(R.id.cetp_held).setVisibility(held.isEmpty() ? View.GONE : View.VISIBLE);

    List<String> scopeNames = new ArrayList<>();
    String scopeWords = scopeWords(request, scopeNames);
    // The provider's own words are in the provider's language, which may not be the screen's.
    String providerName = CetpFormat.isolate(activity, provider);
    String question;
    if (scopeWords.isEmpty()) {
      question = activity.getString(R.string.cetp_question_tools, who, providerName);
    } else {
      question =
          activity.getString(
              request.asksForMore
                  ? R.string.cetp_question_more
                  : R.string.cetp_question,
              who,
              CetpFormat.isolate(activity, scopeWords),
              providerName);
    }
    TextView headline = text(R.id.cetp_question);
    headline.setText(bold(question, who));

    LinearLayout list = activity.findViewById(R.id.cetp_packages);
    LayoutInflater inflater = activity.getLayoutInflater();
    for (CetpAdminState.App p : packages) {
      View row = inflater.inflate(R.layout.cetp_consent_package, list, false);
      ((TextView) row.findViewById(R.id.cetp_package)).setText(p.pkg);
      CetpViews.showCertificate(row.findViewById(R.id.cetp_certificate), p.certificate);
      list.addView(row);
    }
    list.setVisibility(!packages.isEmpty() ? View.VISIBLE : View.GONE);
    activity.findViewById(R.id.cetp_shared_identity)
        .setVisibility(packages.size() > 1 ? View.VISIBLE : View.GONE);

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
  private void showRequests(
      List<CetpAdminState.PendingRequest> pending,
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
            .getQuantityString(R.plurals.cetp_requests_title, pending.size(), pending.size(), provider));
    LinearLayout list = activity.findViewById(R.id.cetp_requests);
    LayoutInflater inflater = activity.getLayoutInflater();
    for (CetpAdminState.PendingRequest request : pending) {
      View item = inflater.inflate(R.layout.cetp_request_item, list, false);
      List<CetpAdminState.App> packages = request.packages;
      CetpAdminState.App first = packages.isEmpty() ? null : packages.get(0);
      CetpViews.showApp(item, first == null ? "" : first.pkg, first == null ? null : first.certificate);
      if (packages.size() > 1) {
        ((TextView) item.findViewById(R.id.cetp_app_label)).setText(labels(packages));
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
  private String when(CetpAdminState.PendingRequest request, long now) {
    long ago = Math.max(0, now - request.requestedAtMs);
    int minutes = minutes(ago / CetpFormat.MINUTE_MS);
    String asked =
        minutes == 0
            ? activity.getString(R.string.cetp_request_asked_now)
            : quantity(R.plurals.cetp_request_asked, minutes);
    long expires = request.expiresAtMs;
    if (expires <= 0) {
      return asked;
    }
    // Rounded up: "in 1 minute" until it lapses.
    long left = Math.max(0, expires - now);
    int inMinutes =
        Math.max(1, minutes((left + CetpFormat.MINUTE_MS - 1) / CetpFormat.MINUTE_MS));
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
  private boolean isShowing(CetpAdminState.PendingRequest request, CetpAdminState state) {
    return shownRequest != null && shownRequest.equals(identity(request, state));
  }

  private String identity(CetpAdminState.PendingRequest request, CetpAdminState state) {
    StringBuilder out =
        new StringBuilder(request.id).append(state.unsavedChanges ? " unsaved" : "");
    for (CetpAdminState.Scope scope : request.scopes) {
      out.append(' ').append(scope.name).append('=').append(scope.words);
    }
    for (CetpAdminState.ScopeAccess entry : held(request)) {
      out.append('\n')
          .append(entry.scope == null ? "" : state.scopeWords(entry.scope))
          .append(' ')
          .append(CetpFormat.terms(activity, entry, state.nowMs));
    }
    return out.toString();
  }

  /**
   * What the app that made {@code request} already has, as the provider decided it: the scopes in
   * force for its own packages and certificates, then the tools that need no scope.
   */
  private static List<CetpAdminState.ScopeAccess> held(CetpAdminState.PendingRequest request) {
    List<CetpAdminState.ScopeAccess> held = new ArrayList<>(request.held);
    if (request.heldNoScope != null) {
      held.add(request.heldNoScope);
    }
    return held;
  }

  /** The labels of {@code packages}' apps, comma-separated. */
  private String labels(List<CetpAdminState.App> packages) {
    List<String> labels = new ArrayList<>();
    for (CetpAdminState.App p : packages) {
      labels.add(CetpViews.appLabel(activity, p.pkg));
    }
    return String.join(", ", labels);
  }

  /**
   * Enables Allow of the request shown {@code delayMs} from now, unless another screen shows by
   * then or {@code controller} is saving a decision.
   */
  private void enableAllowAfter(long delayMs, CetpConsentController controller) {
    Button shown = allow;
    shown.postDelayed(
        () -> {
          if (allow == shown && !controller.isDeciding()) {
            shown.setEnabled(true);
          }
        },
        delayMs);
  }

  /** The words of {@code notice}, or null. */
  private String words(CetpConsentController.Notice notice) {
    if (notice == null) {
      return null;
    }
    return activity.getString(
        notice == CetpConsentController.Notice.REQUEST_CHANGED
            ? R.string.cetp_request_changed
            : R.string.cetp_save_failed);
  }

  /** As the dialog closes: that {@code waiting} requests of other apps still wait (if any). */
  void sayWaiting(int waiting) {
    if (waiting > 0) {
      Toast.makeText(
              activity,
              activity
                  .getResources()
                  .getQuantityString(R.plurals.cetp_more_waiting, waiting, waiting),
              Toast.LENGTH_LONG)
          .show();
    }
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
  private static String scopeWords(CetpAdminState.PendingRequest request, List<String> names) {
    List<String> words = new ArrayList<>();
    for (CetpAdminState.Scope scope : request.scopes) {
      names.add(scope.name);
      words.add(scope.words);
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
