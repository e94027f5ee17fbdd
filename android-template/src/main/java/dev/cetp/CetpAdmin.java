package dev.cetp;

import android.content.Context;
import android.content.res.Configuration;
import android.os.Build;
import android.os.Handler;
import android.os.Looper;
import android.util.Log;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;
import org.jspecify.annotations.NullUnmarked;

/**
 * The consent screens' client of the provider's admin JSON interface ({@code
 * CetpRuntime.admin}, {@code Provider::handle_admin_json} in Rust): one method per operation.
 *
 * <p><b>Never on the main thread.</b> Every operation runs on one background thread of this class
 * (reading the state goes through the native library, a decision saves the grant store: two
 * fsynced writes and a directory fsync, and the first call may be what loads the library), in
 * the order the screens asked; its {@link Reply} is then delivered to the callback on the main
 * thread. This class is the only caller of the native admin method ({@link #bridge}).
 *
 * <p>Each operation names the screen's language ({@link #locale}), so that the reply describes
 * the app's scopes in it where the app translated them.
 */
@NullUnmarked
final class CetpAdmin {
  private CetpAdmin() {}

  /** An admin reply: whether it worked, the error kind if not, and the state after it. */
  static final class Reply {
    /** Whether the operation succeeded. */
    final boolean ok;
    /** {@link Wire#ADMIN_ERROR_UNKNOWN_REQUEST}, ...; empty when {@link #ok}. */
    final String errorKind;
    /** The provider's state after the operation; null when the provider is not reachable. */
    final CetpAdminState state;
    /** The provider found its stored decisions unreadable and lost them (the screens say so). */
    final boolean decisionsLost;
    /**
     * After a decision asked for it: how many requests of any app still wait (the state itself
     * lists only the launching app's); -1 otherwise.
     */
    final int waiting;

    Reply(
        boolean ok, String errorKind, CetpAdminState state, boolean decisionsLost, int waiting) {
      this.ok = ok;
      this.errorKind = errorKind;
      this.state = state;
      this.decisionsLost = decisionsLost;
      this.waiting = waiting;
    }

    /** Whether the user's choice was refused because the request changed or was answered. */
    boolean requestChanged() {
      return errorKind.equals(Wire.ADMIN_ERROR_UNKNOWN_REQUEST)
          || errorKind.equals(Wire.ADMIN_ERROR_SCOPE_NOT_REQUESTED)
          || errorKind.equals(Wire.ADMIN_ERROR_NOT_FOUND);
    }
  }

  /** Where a {@link Reply} goes, on the main thread. */
  interface Callback {
    void done(Reply reply);
  }

  /** The native admin method, one JSON request in, one JSON reply out. */
  interface Bridge {
    String admin(String requestJson);
  }

  /**
   * The way to the native library: the only place that names the native admin method. Tests
   * replace it to watch which thread enters it.
   */
  static volatile Bridge bridge = CetpRuntime::admin;

  /** The one thread admin calls run on, in order. */
  private static final ExecutorService WORKER =
      Executors.newSingleThreadExecutor(
          task -> {
            Thread thread = new Thread(task, "cetp-admin");
            thread.setDaemon(true);
            return thread;
          });

  /** Operations asked for whose reply has not been delivered yet. */
  private static final AtomicInteger UNDELIVERED = new AtomicInteger();

  /** {@link Reply#errorKind} when the native library is not loaded or answered nonsense. */
  private static final String UNREACHABLE_KIND = "unreachable";

  /** The reply when the native library is not loaded or answered nonsense. */
  private static final Reply UNREACHABLE = new Reply(false, UNREACHABLE_KIND, null, false, -1);

  /**
   * The state, with pending requests restricted to {@code callerUid} (the app whose request the
   * screen shows) when it is not negative.
   */
  static void state(String locale, int callerUid, Callback callback) {
    submit(() -> send(caller(op(Wire.ADMIN_OP_STATE, locale), callerUid)), callback);
  }

  /** The language {@code screen} shows, as a BCP 47 tag ({@code fr}, {@code pt-BR}). */
  @SuppressWarnings("deprecation") // Configuration.locale before API 24
  static String locale(Context screen) {
    Configuration configuration = screen.getResources().getConfiguration();
    return Build.VERSION.SDK_INT >= Build.VERSION_CODES.N
        ? configuration.getLocales().get(0).toLanguageTag()
        : configuration.locale.toLanguageTag();
  }

  /**
   * Approves request {@code id} for exactly {@code scopes} (the ones the screen displayed); with
   * {@code callerUid} ≥ 0 the provider refuses a request of another app. With {@code
   * countWaiting}, the reply also says how many requests of any app still wait.
   */
  static void approve(
      String locale,
      String id,
      List<String> scopes,
      boolean limited,
      long durationSecs,
      int callerUid,
      boolean countWaiting,
      Callback callback) {
    Json request =
        op(Wire.ADMIN_OP_APPROVE, locale)
            .putOpt(Wire.ADMIN_KEY_ID, id)
            .putOpt(Wire.ADMIN_KEY_SCOPES, new JSONArray(scopes))
            .putOpt(Wire.ADMIN_KEY_ACCESS, limited ? Wire.ADMIN_ACCESS_LIMITED : Wire.ADMIN_ACCESS_FULL);
    if (durationSecs > 0) {
      request.putOpt(Wire.ADMIN_KEY_DURATION_SECS, durationSecs);
    }
    submit(() -> decide(caller(request, callerUid), countWaiting), callback);
  }

  /** Denies request {@code id}; the same rules as {@link #approve}. */
  static void deny(
      String locale, String id, int callerUid, boolean countWaiting, Callback callback) {
    submit(
        () ->
            decide(
                caller(op(Wire.ADMIN_OP_DENY, locale).putOpt(Wire.ADMIN_KEY_ID, id), callerUid),
                countWaiting),
        callback);
  }

  /** Ends the grant of {@code pkg} signed by {@code certificate}. */
  static void revoke(String locale, String pkg, String certificate, Callback callback) {
    submit(
        () ->
            send(
                op(Wire.ADMIN_OP_REVOKE, locale)
                    .putOpt(Wire.ADMIN_KEY_PACKAGE, pkg)
                    .putOpt(Wire.ADMIN_KEY_CERTIFICATE_SHA256, certificate)),
        callback);
  }

  /** Lets the declined {@code pkg} signed by {@code certificate} ask again. */
  static void clearDenial(String locale, String pkg, String certificate, Callback callback) {
    submit(
        () ->
            send(
                op(Wire.ADMIN_OP_CLEAR_DENIAL, locale)
                    .putOpt(Wire.ADMIN_KEY_PACKAGE, pkg)
                    .putOpt(Wire.ADMIN_KEY_CERTIFICATE_SHA256, certificate)),
        callback);
  }

  /**
   * Waits until every operation asked for so far has run on the worker (their replies are then
   * posted to the main thread). For tests, which wait for the screens this way instead of
   * sleeping; the screens never block on it.
   */
  static void awaitQueued() throws InterruptedException {
    try {
      WORKER.submit(() -> {}).get();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Whether an operation's reply is still to be delivered (see {@link #awaitQueued}). */
  static boolean busy() {
    return UNDELIVERED.get() > 0;
  }

  private interface Work {
    Reply run();
  }

  private static void submit(Work work, Callback callback) {
    UNDELIVERED.incrementAndGet();
    WORKER.execute(
        () -> {
          Reply reply;
          try {
            reply = work.run();
          } catch (RuntimeException | LinkageError e) {
            Log.e(CetpRuntime.TAG, "CETP consent dialog: admin call failed", e);
            reply = UNREACHABLE;
          }
          Reply delivered = reply;
          new Handler(Looper.getMainLooper())
              .post(
                  () -> {
                    try {
                      callback.done(delivered);
                    } finally {
                      UNDELIVERED.decrementAndGet();
                    }
                  });
        });
  }

  /** A decision, then (when asked and it worked) the count of every app's waiting requests. */
  private static Reply decide(Json request, boolean countWaiting) {
    Reply reply = send(request);
    if (!reply.ok || !countWaiting) {
      return reply;
    }
    Reply all = send(op(Wire.ADMIN_OP_STATE));
    int waiting = all.state == null ? 0 : all.state.pending.size();
    return new Reply(reply.ok, reply.errorKind, reply.state, reply.decisionsLost, waiting);
  }

  private static Json caller(Json request, int callerUid) {
    return callerUid >= 0 ? request.putOpt(Wire.ADMIN_KEY_CALLER_UID, callerUid) : request;
  }

  /** One request through the bridge, on the worker thread. */
  private static Reply send(Json request) {
    String reply;
    try {
      reply = bridge.admin(request.json.toString());
    } catch (LinkageError e) {
      // The library never loaded (the provider logged why).
      Log.e(CetpRuntime.TAG, "CETP consent dialog: the native library is not loaded", e);
      return UNREACHABLE;
    }
    if (reply == null) {
      return UNREACHABLE;
    }
    try {
      Reply parsed = CetpAdminJson.reply(reply);
      if (!parsed.ok) {
        Log.w(
            CetpRuntime.TAG,
            "CETP consent dialog: "
                + request.json.optString(Wire.ADMIN_OP)
                + " failed: "
                + parsed.errorKind);
      }
      return parsed;
    } catch (JSONException e) {
      Log.e(CetpRuntime.TAG, "CETP consent dialog: unreadable admin reply", e);
      return UNREACHABLE;
    }
  }

  /** A request for the operation {@code op} (one of {@code Wire.ADMIN_OP_*}). */
  private static Json op(String op) {
    return new Json().putOpt(Wire.ADMIN_OP, op);
  }

  /** A request for {@code op} whose reply describes the scopes in the language {@code locale}. */
  private static Json op(String op, String locale) {
    return op(op).putOpt(Wire.ADMIN_KEY_LOCALE, locale);
  }

  /** A JSONObject builder whose puts cannot fail (keys are constants, values are finite). */
  private static final class Json {
    final JSONObject json = new JSONObject();

    Json putOpt(String key, Object value) {
      try {
        json.putOpt(key, value);
      } catch (JSONException e) {
        throw new IllegalStateException(e);
      }
      return this;
    }
  }
}
