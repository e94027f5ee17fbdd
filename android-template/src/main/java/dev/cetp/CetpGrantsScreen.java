package dev.cetp;

import android.app.Activity;
import android.view.LayoutInflater;
import android.view.View;
import android.widget.LinearLayout;
import android.widget.TextView;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.NullUnmarked;

/**
 * Apps with access ({@code res/layout/cetp_grants.xml}): every allowed app with, per scope, what it
 * may read, how much and until when (and what it may use without scopes), when it last read and
 * how often (the provider's on-device access log); every declined app; and the actions Remove
 * access and Let it ask again.
 */
@NullUnmarked
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

  /** Shows {@code state}, with {@code notice} on top when an action failed. */
  void show(CetpAdminState state, String notice, boolean decisionsLost) {
    activity.setContentView(R.layout.cetp_grants);
    actionButtons.clear();
    String provider = state.providerName;
    text(R.id.cetp_title).setText(activity.getString(R.string.cetp_manage_title, provider));
    text(R.id.cetp_intro).setText(activity.getString(R.string.cetp_manage_intro, provider));
    TextView message = text(R.id.cetp_message);
    message.setText(notice);
    message.setVisibility(notice != null ? View.VISIBLE : View.GONE);
    text(R.id.cetp_decisions_lost).setVisibility(decisionsLost ? View.VISIBLE : View.GONE);
    text(R.id.cetp_unsaved_changes)
        .setVisibility(state.unsavedChanges ? View.VISIBLE : View.GONE);

    LayoutInflater inflater = activity.getLayoutInflater();
    text(R.id.cetp_no_grants).setVisibility(state.grants.isEmpty() ? View.VISIBLE : View.GONE);
    LinearLayout grantList = activity.findViewById(R.id.cetp_grants);
    for (CetpAdminState.Grant grant : state.grants) {
      String pkg = grant.app.pkg;
      String cert = grant.app.certificate;
      View card = inflater.inflate(R.layout.cetp_grant_item, grantList, false);
      CetpViews.showApp(card, pkg, cert);
      LinearLayout rows = card.findViewById(R.id.cetp_grant_scopes);
      for (CetpAdminState.ScopeAccess entry : grant.perScope) {
        CetpViews.addScopeRow(activity, rows, state, entry);
      }
      if (grant.noScope != null) {
        CetpViews.addScopeRow(activity, rows, state, grant.noScope);
      }
      ((TextView) card.findViewById(R.id.cetp_history)).setText(history(grant));
      View revoke = card.findViewById(R.id.cetp_revoke);
      revoke.setOnClickListener(v -> actions.revoke(pkg, cert));
      actionButtons.add(revoke);
      grantList.addView(card);
    }

    text(R.id.cetp_no_denials).setVisibility(state.denials.isEmpty() ? View.VISIBLE : View.GONE);
    LinearLayout denialList = activity.findViewById(R.id.cetp_denials);
    for (CetpAdminState.Denial denial : state.denials) {
      String pkg = denial.app.pkg;
      String cert = denial.app.certificate;
      View card = inflater.inflate(R.layout.cetp_denial_item, denialList, false);
      CetpViews.showApp(card, pkg, cert);
      ((TextView) card.findViewById(R.id.cetp_denied_on))
          .setText(
              activity.getString(
                  R.string.cetp_denied_on, CetpFormat.date(activity, denial.deniedAtMs)));
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

  /** What the access log says about the grant's app. */
  private String history(CetpAdminState.Grant grant) {
    if (grant.lastAccessMs < 0) {
      return activity.getString(R.string.cetp_history_never);
    }
    int day = (int) Math.min(Integer.MAX_VALUE, grant.callsDay);
    int week = (int) Math.min(Integer.MAX_VALUE, grant.callsWeek);
    return activity.getString(
        R.string.cetp_history,
        CetpFormat.date(activity, grant.lastAccessMs),
        activity.getResources().getQuantityString(R.plurals.cetp_calls_today, day, day),
        activity.getResources().getQuantityString(R.plurals.cetp_calls_week, week, week));
  }

  private TextView text(int id) {
    return activity.findViewById(id);
  }
}
