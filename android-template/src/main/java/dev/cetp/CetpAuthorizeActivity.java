package dev.cetp;

import android.app.Activity;
import android.content.ComponentName;
import android.content.Intent;
import android.content.pm.PackageManager;
import android.os.Build;
import android.os.Bundle;
import android.os.Handler;
import android.os.Looper;
import android.os.Process;
import android.os.SystemClock;
import android.util.Log;
import android.widget.Button;
import android.widget.Toast;
import java.util.List;

/**
 * The consent dialog: the pending request of the app that opened it, or, when Android does not
 * say which app that was, the list of every pending request for the user to answer one by one.
 *
 * <p>Two entries lead here. <b>The exported one</b>, the implicit action {@code
 * <applicationId>.CETP_AUTHORIZE} (the {@code authorize_intent} of {@code AUTH_REQUIRED}), is
 * what other apps open; <b>nothing from its intent but the action is read</b> (any app can start
 * it with any extras). The launching app is taken from the platform: {@link
 * #getLaunchedFromUid()} on API 34+ (when the launcher shares its identity), else {@link
 * #getCallingPackage()} (set for {@code startActivityForResult}). <b>The app's own entry</b>, the
 * {@code <activity-alias>} {@value CetpScreens#OWN_ENTRY} with {@code android:exported="false"},
 * can only be started by this app (its approval notification, its settings: {@link
 * CetpScreens}), so its extra {@link CetpScreens#EXTRA_REQUEST_UID} names whose request to show.
 *
 * <p>With a known app, only that app's request is offered (the provider lists only the requests
 * of the {@code caller_uid}, and decisions carry the UID too). Without one, no request is chosen
 * for the user: every pending request is listed, each app identified by icon, label, package and
 * certificate. Decisions name the request by id and exactly the scopes
 * shown. Decision controls refuse touches while another window covers the screen wholly or
 * partly, overlays are hidden on API 31+, and Allow is enabled only {@link #ALLOW_ENABLE_DELAY_MS}
 * after a request appears.
 *
 * <p>The provider's state is read, and decisions are saved, on {@link CetpAdmin}'s background
 * thread; the dialog disables its decision controls while a decision is being saved, and a
 * decision still being saved when the dialog is recreated (rotation) is settled by the new one.
 *
 * <p>A pending request lapses ({@code expires_at_ms}) unless its app asks again. A lapsed request
 * is never offered: the provider lists none that has lapsed, and the dialog reads the state
 * again when a request it shows reaches its expiry (the request list also says every minute
 * when each app asked).
 */
public class CetpAuthorizeActivity extends Activity implements CetpConsentScreen.Decisions {
  /** How long Allow stays disabled after a request appears, so a tap meant for something else cannot land on it. */
  public static final long ALLOW_ENABLE_DELAY_MS = 600;

  private static final String SAVED_CHOSEN = "dev.cetp.state.CHOSEN";
  private static final String SAVED_DECIDING = "dev.cetp.state.DECIDING";
  private static final String SAVED_RESULT = "dev.cetp.state.RESULT";

  /** The UID whose request is shown, or -1: every pending request is listed. */
  private int requestUid = -1;
  /** In the list: the id of the request the user chose to answer, or null. */
  private String chosen;
  /** The id of the request whose decision is being saved, or null. */
  private String deciding;
  /** The result for the app that asked once that decision is saved. */
  private int decidingResult = RESULT_CANCELED;
  /** A notice for the next render (an action failed), or null. */
  private String notice;
  /** In the list: the user answered at least one request (the dialog closes when none is left). */
  private boolean answered;
  private CetpConsentScreen screen;
  /** The re-read when a request shown lapses, and the list's minute ticks. */
  private final Handler timers = new Handler(Looper.getMainLooper());
  /** The provider's clock when the state shown was read, and the uptime then. */
  private long stateNowMs;
  private long stateReadAtUptime;

  @Override
  protected void onCreate(Bundle savedInstanceState) {
    super.onCreate(savedInstanceState);
    // The runtime starts on the first admin call (off the main thread), which needs this
    // app's context.
    CetpRuntime.register(this, null, null);
    if (Build.VERSION.SDK_INT >= 31) {
      try {
        getWindow().setHideOverlayWindows(true);
      } catch (SecurityException e) {
        Log.w(
            CetpRuntime.TAG,
            "CETP approval screen: HIDE_OVERLAY_WINDOWS is not granted; overlays stay visible",
            e);
      }
    }
    setFinishOnTouchOutside(false);
    requestUid = ownEntry() ? namedUid() : launcher();
    if (savedInstanceState != null) {
      // The dialog's own state from before a recreation, kept by the platform: not the caller's.
      chosen = savedInstanceState.getString(SAVED_CHOSEN);
      deciding = savedInstanceState.getString(SAVED_DECIDING);
      decidingResult = savedInstanceState.getInt(SAVED_RESULT, RESULT_CANCELED);
    }
    screen = new CetpConsentScreen(this, this);
    screen.showLoading();
    refresh();
  }

  @Override
  protected void onRestart() {
    super.onRestart();
    // Back from Apps with access or another app: requests may have been answered meanwhile. The
    // request shown stays as the user left it unless it changed.
    if (deciding == null) {
      refresh();
    }
  }

  @Override
  protected void onStop() {
    super.onStop();
    // Coming back reads the state again (onRestart) and sets the timers anew.
    timers.removeCallbacksAndMessages(null);
  }

  @Override
  protected void onDestroy() {
    timers.removeCallbacksAndMessages(null);
    super.onDestroy();
  }

  @Override
  protected void onSaveInstanceState(Bundle outState) {
    super.onSaveInstanceState(outState);
    outState.putString(SAVED_CHOSEN, chosen);
    outState.putString(SAVED_DECIDING, deciding);
    outState.putInt(SAVED_RESULT, decidingResult);
  }

  /** Whether this app itself started the dialog, through its non-exported entry. */
  private boolean ownEntry() {
    ComponentName component = getComponentName();
    return component != null && CetpScreens.OWN_ENTRY.equals(component.getClassName());
  }

  /** The UID the app's own entry names, or -1 (then every request is listed). */
  private int namedUid() {
    Intent intent = getIntent();
    int uid = intent == null ? -1 : intent.getIntExtra(CetpScreens.EXTRA_REQUEST_UID, -1);
    return isOtherApp(uid) ? uid : -1;
  }

  /**
   * The UID of the app that started the exported entry, or -1: {@link #getLaunchedFromUid()}
   * (API 34+), else the package of {@link #getCallingPackage()} (only set with {@code
   * startActivityForResult}). This app itself and system UIDs count as unknown.
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

  private boolean listing() {
    return requestUid < 0;
  }

  /** Reads the state (off the main thread) and shows it. */
  private void refresh() {
    CetpAdmin.state(CetpAdmin.locale(this), requestUid, this::show);
  }

  private boolean gone() {
    return isFinishing() || isDestroyed();
  }

  // ------------------------------------------------------------------------------------------
  // Rendering

  private void show(CetpAdmin.Reply reply) {
    if (gone()) {
      return;
    }
    timers.removeCallbacksAndMessages(null);
    CetpAdminState state = reply.state;
    if (state == null || !state.storeOpen) {
      deciding = null;
      screen.showEmpty(R.string.cetp_unavailable, takeNotice(), false, false, false);
      return;
    }
    stateNowMs = state.nowMs;
    stateReadAtUptime = SystemClock.uptimeMillis();
    // The provider lists only the requests this dialog may offer: the known app's (by
    // caller_uid), none lapsed.
    List<CetpAdminState.PendingRequest> pending = state.pending;
    if (deciding != null) {
      // A decision was being saved when this dialog was recreated; the worker saved it before
      // reading this state. Gone from the pending requests: it went through.
      String id = deciding;
      deciding = null;
      if (state.request(id) == null) {
        decided(decidingResult, -1);
        if (!listing() || gone()) {
          return;
        }
      } else {
        notice = getString(R.string.cetp_save_failed);
      }
    }
    boolean lost = reply.decisionsLost;
    boolean unsaved = state.unsavedChanges;
    String provider = state.providerName;
    CetpAdminState.PendingRequest request = listing() ? state.request(chosen) : first(pending);
    if (request == null) {
      chosen = null;
      if (listing() && !pending.isEmpty()) {
        screen.showRequests(pending, provider, stateNowMs, takeNotice(), lost, unsaved);
        whenLapsed(pending);
        timers.postDelayed(this::tick, CetpFormat.MINUTE_MS);
      } else if (answered && notice == null) {
        finish();
      } else {
        screen.showEmpty(R.string.cetp_no_pending, takeNotice(), lost, unsaved, true);
      }
      return;
    }
    whenLapsed(List.of(request));
    String shownNotice = takeNotice();
    if (shownNotice == null && !lost && screen.isShowing(request, state)) {
      // Back on the same request, unchanged: the user's choices on it stay.
      return;
    }
    screen.showRequest(request, state, shownNotice, lost, listing());
    Button allow = screen.allowButton();
    allow.postDelayed(
        () -> {
          if (screen.allowButton() == allow && deciding == null) {
            allow.setEnabled(true);
          }
        },
        ALLOW_ENABLE_DELAY_MS);
  }

  /** Reads the state again when the first of {@code shown} lapses, unless it is asked for again. */
  private void whenLapsed(List<CetpAdminState.PendingRequest> shown) {
    long first = Long.MAX_VALUE;
    for (CetpAdminState.PendingRequest request : shown) {
      long at = request.expiresAtMs;
      if (at > 0) {
        first = Math.min(first, at);
      }
    }
    if (first != Long.MAX_VALUE) {
      timers.postDelayed(
          () -> {
            if (deciding == null) {
              refresh();
            }
          },
          Math.max(0, first - stateNowMs));
    }
  }

  /** Every minute on the list: when each app asked, said again. */
  private void tick() {
    screen.updateTimes(stateNowMs + (SystemClock.uptimeMillis() - stateReadAtUptime));
    timers.postDelayed(this::tick, CetpFormat.MINUTE_MS);
  }

  private String takeNotice() {
    String shown = notice;
    notice = null;
    return shown;
  }

  /** The app's request (the provider keeps one per app; the one asked first if several). */
  private static CetpAdminState.PendingRequest first(List<CetpAdminState.PendingRequest> pending) {
    CetpAdminState.PendingRequest best = null;
    for (CetpAdminState.PendingRequest request : pending) {
      if (best == null || request.firstRequestedMs < best.firstRequestedMs) {
        best = request;
      }
    }
    return best;
  }

  // ------------------------------------------------------------------------------------------
  // Decisions

  @Override
  public void approve(
      CetpAdminState.PendingRequest request, List<String> scopes, boolean limited, long durationSecs) {
    if (startDeciding(request, RESULT_OK)) {
      CetpAdmin.approve(
          CetpAdmin.locale(this),
          request.id,
          scopes,
          limited,
          durationSecs,
          uidOf(request),
          !listing(),
          reply -> afterDecision(reply, RESULT_OK));
    }
  }

  @Override
  public void deny(CetpAdminState.PendingRequest request) {
    if (startDeciding(request, RESULT_CANCELED)) {
      CetpAdmin.deny(
          CetpAdmin.locale(this),
          request.id,
          uidOf(request),
          !listing(),
          reply -> afterDecision(reply, RESULT_CANCELED));
    }
  }

  /** One decision at a time: the controls are disabled until it is saved. */
  private boolean startDeciding(CetpAdminState.PendingRequest request, int result) {
    if (deciding != null) {
      return false;
    }
    deciding = request.id;
    decidingResult = result;
    screen.setDeciding(true);
    return true;
  }

  /** The UID decisions are restricted to: the request's own (the provider checks it again). */
  private int uidOf(CetpAdminState.PendingRequest request) {
    return listing() ? request.uid : requestUid;
  }

  private void afterDecision(CetpAdmin.Reply reply, int result) {
    if (gone()) {
      // Closed while saving: the decision stands (or failed) without this dialog.
      return;
    }
    deciding = null;
    if (!reply.ok) {
      notice =
          getString(reply.requestChanged() ? R.string.cetp_request_changed : R.string.cetp_save_failed);
      refresh();
      return;
    }
    decided(result, reply.waiting);
  }

  /**
   * After a saved decision: back to the app that asked (saying so when other requests still
   * wait), or, in the list, back to the requests that remain.
   */
  private void decided(int result, int waiting) {
    setResult(result);
    if (listing()) {
      chosen = null;
      answered = true;
      refresh();
      return;
    }
    if (waiting > 0) {
      Toast.makeText(
              this,
              getResources().getQuantityString(R.plurals.cetp_more_waiting, waiting, waiting),
              Toast.LENGTH_LONG)
          .show();
    }
    finish();
  }

  @Override
  public void review(CetpAdminState.PendingRequest request) {
    chosen = request.id;
    refresh();
  }

  @Override
  public void backToRequests() {
    chosen = null;
    refresh();
  }

  @Override
  public void openGrants() {
    startActivity(CetpScreens.grantsIntent(this));
  }

  @Override
  public void close() {
    setResult(RESULT_CANCELED);
    finish();
  }
}
