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
import java.util.List;
import org.jspecify.annotations.Nullable;

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
 * of the {@code caller_uid}, and decisions carry the UID too); without one, every pending request
 * is listed. What to show and what an answer does is {@link CetpConsentController}'s; the views
 * are {@link CetpConsentScreen}'s. Decision controls refuse touches while another window covers
 * the screen, overlays are hidden on API 31+, and Allow is enabled only {@link
 * #ALLOW_ENABLE_DELAY_MS} after a request appears. The state is read, and decisions saved, on
 * {@link CetpAdmin}'s background thread; a decision still being saved when the dialog is
 * recreated (rotation) is settled by the new one. A request shown is read again when it lapses.
 */
public class CetpAuthorizeActivity extends Activity implements CetpConsentScreen.Decisions {
  /** How long Allow stays disabled after a request appears, so a tap meant for something else cannot land on it. */
  public static final long ALLOW_ENABLE_DELAY_MS = 600;

  private static final String SAVED_CHOSEN = "dev.cetp.state.CHOSEN";
  private static final String SAVED_DECIDING = "dev.cetp.state.DECIDING";
  private static final String SAVED_RESULT = "dev.cetp.state.RESULT";

  /** The UID whose request is shown, or -1: every pending request is listed. */
  private int requestUid = -1;
  /** What to show and what the answers do. */
  private CetpConsentController controller;
  private CetpConsentScreen screen;
  /** The re-read when a request shown lapses, and the list's minute ticks. */
  private final Handler timers = new Handler(Looper.getMainLooper());
  /** The provider's clock when the state shown was read, and the uptime then. */
  private long stateNowMs;
  private long stateReadAtUptime;

  @Override
  protected void onCreate(@Nullable Bundle savedInstanceState) {
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
            "CETP consent dialog: HIDE_OVERLAY_WINDOWS is not granted; overlays stay visible",
            e);
      }
    }
    setFinishOnTouchOutside(false);
    requestUid = ownEntry() ? namedUid() : launcher();
    // The dialog's own state from before a recreation, kept by the platform: not the caller's.
    Bundle saved = savedInstanceState == null ? new Bundle() : savedInstanceState;
    controller =
        new CetpConsentController(
            requestUid,
            saved.getString(SAVED_CHOSEN),
            saved.getString(SAVED_DECIDING),
            saved.getInt(SAVED_RESULT, RESULT_CANCELED));
    screen = new CetpConsentScreen(this, this);
    screen.showLoading();
    refresh();
  }

  @Override
  protected void onRestart() {
    super.onRestart();
    // Back from Apps with access or another app: requests may have been answered meanwhile. The
    // request shown stays as the user left it unless it changed.
    refreshUnlessDeciding();
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
    outState.putString(SAVED_CHOSEN, controller.chosen());
    outState.putString(SAVED_DECIDING, controller.deciding());
    outState.putInt(SAVED_RESULT, controller.decidingResult());
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

  /** Reads the state (off the main thread) and shows it. */
  private void refresh() {
    CetpAdmin.state(CetpAdmin.locale(this), requestUid, this::show);
  }

  private boolean gone() {
    return isFinishing() || isDestroyed();
  }

  private void show(CetpAdmin.Reply reply) {
    if (gone()) {
      return;
    }
    timers.removeCallbacksAndMessages(null);
    CetpAdminState state = reply.state;
    if (state != null) {
      stateNowMs = state.nowMs;
      stateReadAtUptime = SystemClock.uptimeMillis();
    }
    carryOut(controller.onState(state, reply.decisionsLost), state, reply.decisionsLost);
  }

  /** Does what {@code plan} says: the result, another read, the timers, the screen. */
  private void carryOut(CetpConsentController.Plan plan, CetpAdminState state, boolean lost) {
    if (plan.result != null) {
      setResult(plan.result);
    }
    if (plan.refresh) {
      refresh();
    }
    if (plan.show == null) {
      return;
    }
    if (plan.show == CetpConsentController.Show.FINISH) {
      screen.sayWaiting(plan.waiting);
      finish();
      return;
    }
    whenLapsed(plan.lapseInMs);
    if (plan.show == CetpConsentController.Show.LIST) {
      timers.postDelayed(this::tick, CetpFormat.MINUTE_MS);
    }
    screen.render(plan, state, lost, controller);
  }

  /** Reads the state again after {@code delayMs} (a request shown lapses then), unless -1. */
  private void whenLapsed(long delayMs) {
    if (delayMs >= 0) {
      timers.postDelayed(this::refreshUnlessDeciding, delayMs);
    }
  }

  private void refreshUnlessDeciding() {
    if (!controller.isDeciding()) {
      refresh();
    }
  }

  /** Every minute on the list: when each app asked, said again. */
  private void tick() {
    screen.updateTimes(stateNowMs + (SystemClock.uptimeMillis() - stateReadAtUptime));
    timers.postDelayed(this::tick, CetpFormat.MINUTE_MS);
  }

  @Override
  public void approve(
      CetpAdminState.PendingRequest request, List<String> scopes, boolean limited, long durationSecs) {
    if (start(request, RESULT_OK)) {
      CetpAdmin.approve(
          CetpAdmin.locale(this),
          request.id,
          scopes,
          limited,
          durationSecs,
          controller.uidFor(request),
          controller.countWaiting(),
          reply -> afterDecision(reply, RESULT_OK));
    }
  }

  @Override
  public void deny(CetpAdminState.PendingRequest request) {
    if (start(request, RESULT_CANCELED)) {
      CetpAdmin.deny(
          CetpAdmin.locale(this),
          request.id,
          controller.uidFor(request),
          controller.countWaiting(),
          reply -> afterDecision(reply, RESULT_CANCELED));
    }
  }

  /** One decision at a time: the controls are disabled until it is saved. */
  private boolean start(CetpAdminState.PendingRequest request, int result) {
    boolean started = controller.startDeciding(request.id, result);
    if (started) {
      screen.setDeciding(true);
    }
    return started;
  }

  private void afterDecision(CetpAdmin.Reply reply, int result) {
    if (gone()) {
      // Closed while saving: the decision stands (or failed) without this dialog.
      return;
    }
    carryOut(
        controller.afterDecision(reply.ok, reply.requestChanged(), result, reply.waiting),
        reply.state,
        reply.decisionsLost);
  }

  @Override
  public void review(CetpAdminState.PendingRequest request) {
    controller.review(request);
    refresh();
  }

  @Override
  public void backToRequests() {
    controller.backToRequests();
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
