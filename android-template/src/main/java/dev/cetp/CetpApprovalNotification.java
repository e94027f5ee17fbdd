package dev.cetp;

import android.app.Notification;
import android.app.NotificationChannel;
import android.app.NotificationManager;
import android.app.PendingIntent;
import android.content.Context;
import android.content.Intent;
import android.content.pm.PackageManager;
import android.os.Build;
import android.os.SystemClock;
import android.util.Log;
import android.util.SparseArray;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.jspecify.annotations.NullUnmarked;

/**
 * The notification that brings the user to the consent dialog when an app that has no way to
 * open it (an Apex agent, through the plugin Service) was refused for want of approval.
 *
 * <p>It names the requesting app by label and by package (a look-alike cannot hide behind a
 * borrowed label), and its tap opens the dialog for <b>that app's</b> request through the app's
 * own, non-exported entry ({@link CetpScreens#requestIntent}): never the request some other app
 * made first. Each requesting app has its own notification, posted at most once per {@link
 * #MIN_INTERVAL_MS} however often it is refused, and only when the app may post notifications
 * (on Android 13+ the app must hold {@code android.permission.POST_NOTIFICATIONS}, and the user
 * must not have turned them off).
 */
@NullUnmarked
final class CetpApprovalNotification {
  private CetpApprovalNotification() {}

  /** The notification channel of approval requests. */
  static final String CHANNEL_ID = "dev.cetp.apex_requests";

  /** The notification id; the tag names the requesting UID, so each app has its own. */
  static final int NOTIFICATION_ID = 0x0CE7;

  /** At most one notification per requesting app in this long (10 minutes). */
  static final long MIN_INTERVAL_MS = 10 * 60 * 1000L;

  /**
   * When each UID was last notified ({@link SystemClock#elapsedRealtime()}), per application
   * (one per process in an app; the test environment makes a new one per test).
   */
  private static final Map<Context, SparseArray<Long>> LAST_POSTED = new WeakHashMap<>();

  /**
   * Posts (or replaces) the notification for the app with {@code uid}, unless it was posted less
   * than {@link #MIN_INTERVAL_MS} ago or the app may not post notifications. Never throws.
   */
  static void post(Context context, int uid) {
    try {
      NotificationManager nm =
          (NotificationManager) context.getSystemService(Context.NOTIFICATION_SERVICE);
      if (nm == null || !mayNotify(context, nm) || !due(context, uid)) {
        return;
      }
      String app = CetpViews.appLabel(context, context.getPackageName());
      String[] packages = context.getPackageManager().getPackagesForUid(uid);
      List<String> names = new ArrayList<>();
      if (packages != null) {
        for (String pkg : packages) {
          names.add(CetpViews.safeLabel(pkg));
        }
      }
      String unknown = context.getString(R.string.cetp_notification_unknown_app);
      String host = names.isEmpty() ? unknown : CetpViews.appLabel(context, packages[0]);
      String packageNames = names.isEmpty() ? unknown : String.join(", ", names);
      if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.O) {
        nm.createNotificationChannel(
            new NotificationChannel(
                CHANNEL_ID,
                context.getString(R.string.cetp_notification_channel),
                NotificationManager.IMPORTANCE_DEFAULT));
      }
      Intent open = CetpScreens.requestIntent(context, uid).addFlags(Intent.FLAG_ACTIVITY_NEW_TASK);
      int flags = PendingIntent.FLAG_UPDATE_CURRENT;
      if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.M) {
        flags |= PendingIntent.FLAG_IMMUTABLE;
      }
      // One PendingIntent per UID (the request code), so each carries its own extra.
      PendingIntent tap = PendingIntent.getActivity(context, uid, open, flags);
      Notification.Builder builder =
          Build.VERSION.SDK_INT >= Build.VERSION_CODES.O
              ? new Notification.Builder(context, CHANNEL_ID)
              : legacyBuilder(context);
      String text = context.getString(R.string.cetp_notification_text, packageNames);
      int icon = context.getApplicationInfo().icon;
      Notification notification =
          builder
              .setSmallIcon(icon != 0 ? icon : android.R.drawable.ic_dialog_info)
              .setContentTitle(context.getString(R.string.cetp_notification_title, host, app))
              .setContentText(text)
              .setStyle(new Notification.BigTextStyle().bigText(text))
              .setContentIntent(tap)
              .setAutoCancel(true)
              .build();
      nm.notify(tag(uid), NOTIFICATION_ID, notification);
      remember(context, uid);
    } catch (RuntimeException e) {
      // Diagnostics only: the host already has the error text telling the user where to go.
      Log.w(CetpRuntime.TAG, "CETP: could not post the approval notification", e);
    }
  }

  /** The notification's tag for the app with {@code uid}. */
  static String tag(int uid) {
    return "dev.cetp.approval:" + uid;
  }

  private static boolean due(Context context, int uid) {
    synchronized (LAST_POSTED) {
      SparseArray<Long> posted = LAST_POSTED.get(context.getApplicationContext());
      Long last = posted == null ? null : posted.get(uid);
      long now = SystemClock.elapsedRealtime();
      return last == null || now < last || now - last >= MIN_INTERVAL_MS;
    }
  }

  private static void remember(Context context, int uid) {
    synchronized (LAST_POSTED) {
      Context app = context.getApplicationContext();
      SparseArray<Long> posted = LAST_POSTED.get(app);
      if (posted == null) {
        posted = new SparseArray<>();
        LAST_POSTED.put(app, posted);
      }
      posted.put(uid, SystemClock.elapsedRealtime());
    }
  }

  @SuppressWarnings("deprecation") // Notification.Builder(Context) before channels (API 26)
  private static Notification.Builder legacyBuilder(Context context) {
    return new Notification.Builder(context);
  }

  private static boolean mayNotify(Context context, NotificationManager nm) {
    if (Build.VERSION.SDK_INT >= 33
        && context.checkSelfPermission("android.permission.POST_NOTIFICATIONS")
            != PackageManager.PERMISSION_GRANTED) {
      return false;
    }
    return Build.VERSION.SDK_INT < Build.VERSION_CODES.N || nm.areNotificationsEnabled();
  }
}
