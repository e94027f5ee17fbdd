package dev.cetp;

import android.app.PendingIntent;
import android.content.ComponentName;
import android.content.Context;
import android.content.Intent;
import android.os.Build;

/**
 * Intents for the consent screens, for the app's own code: its settings, its notifications.
 *
 * <p>They open components that are not exported ({@code android:exported="false"} in the
 * template's manifest), so only this app can start them, and the screen may trust what they
 * carry. Other apps reach only the exported consent dialog ({@code <applicationId>.CETP_AUTHORIZE},
 * the {@code authorize_intent} of {@code AUTH_REQUIRED}), which reads nothing from its intent.
 *
 * <pre>{@code
 * // in the app's settings
 * startActivity(CetpScreens.grantsIntent(this));           // Apps with access
 * startActivity(CetpScreens.pendingRequestsIntent(this));  // every app waiting, to answer
 * // where the app knows which app asked (Binder.getCallingUid() in a Service of its own)
 * PendingIntent.getActivity(this, uid, CetpScreens.requestIntent(this, uid), PendingIntent.FLAG_IMMUTABLE);
 * }</pre>
 */
public final class CetpScreens {
  private CetpScreens() {}

  /** The UID whose pending request the dialog shows ({@link #requestIntent}). */
  public static final String EXTRA_REQUEST_UID = "dev.cetp.extra.REQUEST_UID";

  /**
   * The consent dialog's entry for this app alone: an {@code <activity-alias>} of {@link
   * CetpAuthorizeActivity} with {@code android:exported="false"}.
   */
  public static final String OWN_ENTRY = "dev.cetp.CetpOwnRequestActivity";

  /** Apps with access, {@link CetpGrantsActivity} (not exported). */
  public static final String GRANTS_ENTRY = "dev.cetp.CetpGrantsActivity";

  /**
   * Opens the consent dialog for the pending request of the app with {@code uid} (for example
   * {@code Binder.getCallingUid()} of a call the provider refused), and no other app's. When that
   * app has no pending request, the dialog says that no app is waiting.
   */
  public static Intent requestIntent(Context context, int uid) {
    return new Intent()
        .setComponent(new ComponentName(context.getPackageName(), OWN_ENTRY))
        .putExtra(EXTRA_REQUEST_UID, uid);
  }

  /**
   * The {@code resolution} of a CETP v2 call refused with {@code AUTH_REQUIRED}: the consent
   * dialog for the pending request of {@code uid}, the caller the platform named, as an
   * immutable PendingIntent this app creates (the caller can launch it, never change it). Its
   * action sets it apart from the approval notification's PendingIntent for the same UID.
   */
  static PendingIntent resolution(Context context, int uid) {
    Intent intent =
        requestIntent(context, uid).setAction(context.getPackageName() + RESOLUTION_ACTION_SUFFIX);
    int flags = PendingIntent.FLAG_UPDATE_CURRENT;
    if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.M) {
      flags |= PendingIntent.FLAG_IMMUTABLE;
    }
    return PendingIntent.getActivity(context, uid, intent, flags);
  }

  /** The action of {@link #resolution}'s Intent, after the app's package. */
  static final String RESOLUTION_ACTION_SUFFIX = ".CETP_RESOLUTION";

  /**
   * Opens the list of every pending request, each app identified by its icon, label, package and
   * certificate, for the user to answer one by one.
   */
  public static Intent pendingRequestsIntent(Context context) {
    return new Intent().setComponent(new ComponentName(context.getPackageName(), OWN_ENTRY));
  }

  /** Opens Apps with access: every allowed and declined app, to remove access or let one ask again. */
  public static Intent grantsIntent(Context context) {
    return new Intent(context.getPackageName() + Wire.MANAGE_ACTION_SUFFIX)
        .setComponent(new ComponentName(context.getPackageName(), GRANTS_ENTRY));
  }
}
