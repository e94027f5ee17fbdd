package dev.cetp;

import android.app.Activity;
import android.content.Intent;
import android.content.pm.PackageManager;
import android.os.Build;
import android.os.Bundle;
import android.os.Process;
import android.util.Log;
import android.view.View;
import android.view.ViewGroup;
import android.view.Window;
import android.widget.Button;
import android.widget.ScrollView;
import android.widget.TextView;
import android.widget.Toast;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * The approval screen: a consent dialog for the request of the app that opened it, and (with the
 * manage action) the list of apps with access.
 *
 * <p>Consumers open it with the {@code authorize_intent} of an {@code AUTH_REQUIRED} reply, the
 * implicit action {@code <applicationId>.CETP_AUTHORIZE}, ideally with {@code
 * startActivityForResult} and {@code setPackage}; {@code <applicationId>.CETP_MANAGE_GRANTS} (or
 * the dialog's own button) opens the list of allowed and declined apps.
 *
 * <p><b>Nothing from the launching intent but its action is read.</b> Any app can start an
 * exported Activity with any extras, so the screen shows and decides only the pending requests
 * the provider recorded from each caller's Binder identity ({@link CetpAdmin}), by their ids, for
 * exactly the scopes it displayed. When the launching app can be identified ({@link
 * #getLaunchedFromUid()} on API 34+, {@link #getCallingPackage()} when started for result), only
 * that app's request is offered; otherwise the oldest one. Decision controls refuse touches while
 * another window covers the screen wholly or partly, overlays are hidden on API 31+, and Allow is
 * enabled only {@link #ALLOW_ENABLE_DELAY_MS} after the request appears.
 *
 * <p>Views carry tags for tests: {@code cetp:allow}, {@code cetp:deny}, {@code
 * cetp:duration:hour|day|month|forever}, {@code cetp:access:full|limited}, {@code cetp:question},
 * {@code cetp:package:<n>}, {@code cetp:certificate:<n>}, {@code cetp:manage}, {@code cetp:close},
 * {@code cetp:empty}, {@code cetp:message}, {@code cetp:decisions_lost}; on the grants screen
 * {@code cetp:revoke:<n>}, {@code cetp:allow_again:<n>}, {@code cetp:history:<n>}, {@code
 * cetp:app:<n>}.
 */
public class CetpAuthorizeActivity extends Activity
    implements CetpConsentScreen.Decisions, CetpGrantsScreen.Actions {
  /** Appended to the application id: the action consumers launch (the {@code authorize_intent}). */
  public static final String AUTHORIZE_ACTION_SUFFIX = ".CETP_AUTHORIZE";

  /** Appended to the application id: opens the list of allowed and declined apps. */
  public static final String MANAGE_ACTION_SUFFIX = ".CETP_MANAGE_GRANTS";

  /** How long Allow stays disabled after a request appears, so a tap meant for something else cannot land on it. */
  public static final long ALLOW_ENABLE_DELAY_MS = 600;

  private boolean manage;
  /** The UID of the app that opened the dialog, or -1 when it cannot be identified. */
  private int launcherUid = -1;
  /** A notice for the next render (an action failed), or null. */
  private String notice;
  private CetpWidgets widgets;

  @Override
  protected void onCreate(Bundle savedInstanceState) {
    // Only the action is read: extras could come from any app (see the class comment).
    Intent intent = getIntent();
    String action = intent == null ? null : intent.getAction();
    manage = action != null && action.endsWith(MANAGE_ACTION_SUFFIX);
    boolean night = CetpWidgets.isNight(this);
    if (manage) {
      setTheme(
          night
              ? android.R.style.Theme_DeviceDefault_NoActionBar
              : android.R.style.Theme_DeviceDefault_Light_NoActionBar);
    } else {
      setTheme(
          night
              ? android.R.style.Theme_DeviceDefault_Dialog_NoActionBar
              : android.R.style.Theme_DeviceDefault_Light_Dialog_NoActionBar);
    }
    super.onCreate(savedInstanceState);
    // The runtime starts on the first admin call, which needs this app's context.
    CetpRuntime.register(this, null, null);
    widgets = new CetpWidgets(this);
    Window window = getWindow();
    if (Build.VERSION.SDK_INT >= 31) {
      try {
        window.setHideOverlayWindows(true);
      } catch (SecurityException e) {
        Log.w(
            CetpRuntime.TAG,
            "CETP approval screen: HIDE_OVERLAY_WINDOWS is not granted; overlays stay visible",
            e);
      }
    }
    if (manage) {
      window.getDecorView().setBackgroundColor(widgets.surface);
      setTitle(CetpStrings.get(this, "cetp_manage_button"));
    } else {
      window.setBackgroundDrawable(widgets.rounded(widgets.surface, 28));
      setFinishOnTouchOutside(false);
      launcherUid = launcher();
    }
  }

  /**
   * The UID of the app that started this screen, or -1: {@link #getLaunchedFromUid()} (API 34+),
   * else the package of {@link #getCallingPackage()} (only set with {@code startActivityForResult}).
   * This app itself (its settings) and system UIDs count as unknown.
   */
  private int launcher() {
    int uid = -1;
    if (Build.VERSION.SDK_INT >= 34) {
      try {
        uid = getLaunchedFromUid();
      } catch (RuntimeException e) {
        uid = -1;
      }
    }
    if (!isOtherApp(uid)) {
      String pkg = getCallingPackage();
      if (pkg != null && !pkg.equals(getPackageName())) {
        try {
          uid = getPackageManager().getPackageUid(pkg, 0);
        } catch (PackageManager.NameNotFoundException | RuntimeException e) {
          uid = -1;
        }
      }
    }
    return isOtherApp(uid) ? uid : -1;
  }

  private static boolean isOtherApp(int uid) {
    return uid >= Process.FIRST_APPLICATION_UID && uid != Process.myUid();
  }

  @Override
  protected void onResume() {
    super.onResume();
    // Re-read on every return: requests and grants change while the screen is away.
    render(CetpAdmin.state(manage ? -1 : launcherUid));
  }

  // ------------------------------------------------------------------------------------------
  // Rendering

  private void render(CetpAdmin.Reply reply) {
    JSONObject state = reply.state;
    String shownNotice = notice;
    notice = null;
    View content;
    CetpConsentScreen consent = new CetpConsentScreen(widgets);
    if (state == null || !state.optBoolean("store_open")) {
      content = consent.empty(widgets.s("cetp_unavailable"), shownNotice, false, this, false);
    } else if (manage) {
      content = new CetpGrantsScreen(widgets).build(state, shownNotice, reply.decisionsLost, this);
    } else {
      boolean lost = reply.decisionsLost;
      JSONObject request = chooseRequest(CetpWidgets.array(state, "pending"), launcherUid);
      if (request == null) {
        content = consent.empty(widgets.s("cetp_no_pending"), shownNotice, lost, this, true);
      } else {
        content =
            consent.request(
                request,
                state.optString("provider_name"),
                state.optBoolean("offers_limited_access", true),
                shownNotice,
                lost,
                this);
        Button allow = content.findViewWithTag("cetp:allow");
        allow.postDelayed(() -> allow.setEnabled(true), ALLOW_ENABLE_DELAY_MS);
      }
    }
    ScrollView scroll = new ScrollView(this);
    scroll.setFillViewport(true);
    scroll.addView(content);
    setContentView(scroll);
    if (!manage) {
      // What TalkBack announces when the dialog opens: its question (or why there is none).
      View question = content.findViewWithTag("cetp:question");
      View empty = content.findViewWithTag("cetp:empty");
      View said = question != null ? question : empty;
      if (said instanceof TextView) {
        setTitle(((TextView) said).getText());
      }
      int width = getResources().getDisplayMetrics().widthPixels - 2 * widgets.dp(16);
      getWindow().setLayout(Math.min(width, widgets.dp(560)), ViewGroup.LayoutParams.WRAP_CONTENT);
    }
  }

  /**
   * The request to show: the launching app's ({@code uid} ≥ 0: only requests recorded from that
   * UID, whatever the provider's filter did), else the one asked first.
   */
  static JSONObject chooseRequest(JSONArray pending, int uid) {
    JSONObject best = null;
    for (int i = 0; i < pending.length(); i++) {
      JSONObject request = pending.optJSONObject(i);
      if (request == null || (uid >= 0 && (request.isNull("uid") || request.optInt("uid", -1) != uid))) {
        continue;
      }
      if (best == null || firstAsked(request) < firstAsked(best)) {
        best = request;
      }
    }
    return best;
  }

  private static long firstAsked(JSONObject request) {
    return request.optLong("first_requested_ms", request.optLong("requested_at_ms", Long.MAX_VALUE));
  }

  // ------------------------------------------------------------------------------------------
  // Decisions

  @Override
  public void approve(String id, List<String> scopes, boolean limited, long durationSecs) {
    finishWith(CetpAdmin.approve(id, scopes, limited, durationSecs, launcherUid), RESULT_OK);
  }

  @Override
  public void deny(String id) {
    finishWith(CetpAdmin.deny(id, launcherUid), RESULT_CANCELED);
  }

  /** After a decision: back to the app that asked, saying so when other requests still wait. */
  private void finishWith(CetpAdmin.Reply reply, int result) {
    if (!reply.ok) {
      notice = widgets.s(reply.requestChanged() ? "cetp_request_changed" : "cetp_save_failed");
      render(reply.state != null ? reply : CetpAdmin.state(launcherUid));
      return;
    }
    // The reply lists only the launcher's requests; the others are in the unfiltered state.
    JSONObject after = launcherUid >= 0 ? CetpAdmin.state(-1).state : reply.state;
    int waiting = CetpWidgets.array(after, "pending").length();
    if (waiting > 0) {
      Toast.makeText(this, widgets.s("cetp_more_waiting", waiting), Toast.LENGTH_LONG).show();
    }
    setResult(result);
    finish();
  }

  @Override
  public void openGrants() {
    startActivity(
        new Intent(this, CetpAuthorizeActivity.class).setAction(getPackageName() + MANAGE_ACTION_SUFFIX));
  }

  @Override
  public void close() {
    setResult(RESULT_CANCELED);
    finish();
  }

  @Override
  public void revoke(String pkg, String certificate) {
    afterChange(CetpAdmin.revoke(pkg, certificate));
  }

  @Override
  public void clearDenial(String pkg, String certificate) {
    afterChange(CetpAdmin.clearDenial(pkg, certificate));
  }

  /** The grants screen stays open and shows the new state. */
  private void afterChange(CetpAdmin.Reply reply) {
    if (!reply.ok) {
      notice = widgets.s(reply.requestChanged() ? "cetp_request_changed" : "cetp_save_failed");
    }
    render(reply.state != null ? reply : CetpAdmin.state(-1));
  }
}
