package dev.cetp;

import java.util.List;
import org.jspecify.annotations.NullUnmarked;

/**
 * The consent dialog's decisions, in plain Java (no view, no Android class): from the provider's
 * state, what to show (one request, the list of waiting ones, nothing, or close) and when to read
 * the state again; from the user's answer, which request it names and for which UID; after a
 * saved decision, whether the dialog closes. {@link CetpAuthorizeActivity} keeps the lifecycle
 * and the launcher's identity and carries out each {@link Plan}; {@link CetpConsentScreen}
 * renders. What an app holds and which requests may be offered were decided by the provider.
 */
@NullUnmarked
final class CetpConsentController {
  /** Why the last action failed, for the next screen; the Activity words it. */
  enum Notice {
    SAVE_FAILED,
    REQUEST_CHANGED
  }

  /** What the dialog shows next. */
  enum Show {
    /** The provider did not start or has no store: nothing can be decided. */
    UNAVAILABLE,
    /** Nothing to decide. */
    NOTHING,
    /** The list of every waiting request. */
    LIST,
    /** One request. */
    REQUEST,
    /** Close the dialog. */
    FINISH
  }

  /** One step for the Activity: what to show, and what else to do. */
  static final class Plan {
    final Show show;
    /** The request shown ({@link Show#REQUEST}), or null. */
    final CetpAdminState.PendingRequest request;
    final Notice notice;
    /** With {@link Show#REQUEST}: the request may stay as shown if it is unchanged. */
    final boolean mayKeep;
    /** The result to set for the app that asked, or null. */
    final Integer result;
    /** Read the state again now (after a decision on the list). */
    final boolean refresh;
    /** How many other requests still wait (a toast when closing), or -1. */
    final int waiting;
    /** Read the state again after this many ms (a request shown lapses then), or -1. */
    final long lapseInMs;

    private Plan(
        Show show,
        CetpAdminState.PendingRequest request,
        Notice notice,
        boolean mayKeep,
        Integer result,
        boolean refresh,
        int waiting,
        long lapseInMs) {
      this.show = show;
      this.request = request;
      this.notice = notice;
      this.mayKeep = mayKeep;
      this.result = result;
      this.refresh = refresh;
      this.waiting = waiting;
      this.lapseInMs = lapseInMs;
    }

    private static Plan show(Show show, CetpAdminState.PendingRequest request, Notice notice) {
      return new Plan(show, request, notice, false, null, false, -1, -1);
    }

    private Plan with(Integer result, boolean refresh, int waiting, long lapseInMs) {
      return new Plan(show, request, notice, mayKeep, result, refresh, waiting, lapseInMs);
    }
  }

  /** The UID whose request is shown, or -1: every pending request is listed. */
  private final int requestUid;
  /** In the list: the id of the request the user chose to answer, or null. */
  private String chosen;
  /** The id of the request whose decision is being saved, or null. */
  private String deciding;
  /** The result for the app that asked once that decision is saved. */
  private int decidingResult;
  /** Why the last action failed, for the next render, or null. */
  private Notice notice;
  /** In the list: the user answered at least one request (the dialog closes when none is left). */
  private boolean answered;

  /**
   * For the app with {@code requestUid} (or the list, with -1); {@code chosen}, {@code deciding}
   * and {@code decidingResult} as saved before a recreation (null, null, the canceled result).
   */
  CetpConsentController(int requestUid, String chosen, String deciding, int decidingResult) {
    this.requestUid = requestUid;
    this.chosen = chosen;
    this.deciding = deciding;
    this.decidingResult = decidingResult;
  }

  /** Whether every pending request is listed (Android did not say which app opened the dialog). */
  boolean listing() {
    return requestUid < 0;
  }

  String chosen() {
    return chosen;
  }

  String deciding() {
    return deciding;
  }

  int decidingResult() {
    return decidingResult;
  }

  /**
   * What to show for {@code state} (null: the provider is not reachable); {@code decisionsLost}
   * as the reply said. A decision still being saved when the dialog was recreated is settled
   * here: gone from the pending requests, it went through.
   */
  Plan onState(CetpAdminState state, boolean decisionsLost) {
    if (state == null || !state.storeOpen) {
      deciding = null;
      return Plan.show(Show.UNAVAILABLE, null, takeNotice());
    }
    Integer result = null;
    boolean refresh = false;
    if (deciding != null) {
      String id = deciding;
      deciding = null;
      if (state.request(id) == null) {
        result = decidingResult;
        if (!listing()) {
          return Plan.show(Show.FINISH, null, null).with(result, false, -1, -1);
        }
        chosen = null;
        answered = true;
        refresh = true;
      } else {
        notice = Notice.SAVE_FAILED;
      }
    }
    List<CetpAdminState.PendingRequest> pending = state.pending;
    CetpAdminState.PendingRequest request = listing() ? state.request(chosen) : first(pending);
    Plan plan;
    if (request == null) {
      chosen = null;
      if (listing() && !pending.isEmpty()) {
        plan = Plan.show(Show.LIST, null, takeNotice()).with(null, false, -1, lapse(pending, state));
      } else if (answered && notice == null) {
        plan = Plan.show(Show.FINISH, null, null);
      } else {
        plan = Plan.show(Show.NOTHING, null, takeNotice());
      }
    } else {
      Notice shown = takeNotice();
      plan =
          new Plan(
              Show.REQUEST,
              request,
              shown,
              shown == null && !decisionsLost,
              null,
              false,
              -1,
              lapse(List.of(request), state));
    }
    return plan.with(result, refresh, -1, plan.lapseInMs);
  }

  /**
   * The user answered {@code requestId}: whether to send it (one decision at a time; the
   * controls stay disabled until it is saved). {@code result} is what the app that asked gets.
   */
  boolean startDeciding(String requestId, int result) {
    if (deciding != null) {
      return false;
    }
    deciding = requestId;
    decidingResult = result;
    return true;
  }

  /** Whether a decision is being saved. */
  boolean isDeciding() {
    return deciding != null;
  }

  /** The UID a decision on {@code request} is restricted to (the provider checks it again). */
  int uidFor(CetpAdminState.PendingRequest request) {
    return listing() ? request.uid : requestUid;
  }

  /** Whether a decision's reply should count every app's waiting requests (for the toast). */
  boolean countWaiting() {
    return !listing();
  }

  /**
   * After the decision was saved ({@code ok}) or refused ({@code requestChanged}: the request
   * changed or was answered; else it could not be saved), with {@code waiting} requests of any
   * app left: back to the app that asked, or, in the list, to the requests that remain; on
   * failure, the state again with a notice.
   */
  Plan afterDecision(boolean ok, boolean requestChanged, int result, int waiting) {
    deciding = null;
    if (!ok) {
      notice = requestChanged ? Notice.REQUEST_CHANGED : Notice.SAVE_FAILED;
      return Plan.show(null, null, null).with(null, true, -1, -1);
    }
    if (listing()) {
      chosen = null;
      answered = true;
      return Plan.show(null, null, null).with(result, true, -1, -1);
    }
    return Plan.show(Show.FINISH, null, null).with(result, false, waiting, -1);
  }

  /** The user chose {@code request} on the list. */
  void review(CetpAdminState.PendingRequest request) {
    chosen = request.id;
  }

  /** Back from one request to the list. */
  void backToRequests() {
    chosen = null;
  }

  private Notice takeNotice() {
    Notice shown = notice;
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

  /** When the first of {@code shown} lapses, in ms from the state's clock, or -1. */
  private static long lapse(List<CetpAdminState.PendingRequest> shown, CetpAdminState state) {
    long first = Long.MAX_VALUE;
    for (CetpAdminState.PendingRequest request : shown) {
      if (request.expiresAtMs > 0) {
        first = Math.min(first, request.expiresAtMs);
      }
    }
    return first == Long.MAX_VALUE ? -1 : Math.max(0, first - state.nowMs);
  }
}
