package dev.cetp;

import android.content.Context;
import android.os.Build;
import android.text.BidiFormatter;
import android.text.TextDirectionHeuristics;
import android.view.View;
import java.text.DateFormat;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.Locale;
import org.jspecify.annotations.NullUnmarked;

/**
 * The screens' words for what the provider said: text an app chose kept from reordering the
 * sentence around it, certificate fingerprints, a scope's access and expiry, dates and times in
 * the screen's language. No view and no decision: what to say was decided by the provider.
 */
@NullUnmarked
final class CetpFormat {
  private CetpFormat() {}

  static final long MINUTE_MS = 60_000L;
  static final long DAY_MS = 24 * 60 * MINUTE_MS;

  /**
   * Wraps text an app chose so that its direction cannot reorder the sentence around it, in the
   * direction of the screen's language.
   */
  static String isolate(Context context, String text) {
    return bidi(context).unicodeWrap(text);
  }

  /**
   * Wraps text that reads left to right whatever the language (a certificate fingerprint) so that
   * a right-to-left sentence around it keeps it whole and in order.
   */
  static String leftToRight(Context context, String text) {
    return bidi(context).unicodeWrap(text, TextDirectionHeuristics.LTR);
  }

  private static BidiFormatter bidi(Context context) {
    boolean rtl =
        context.getResources().getConfiguration().getLayoutDirection() == View.LAYOUT_DIRECTION_RTL;
    return BidiFormatter.getInstance(rtl);
  }

  /**
   * A scope's access and expiry as one line: <i>Limited access · until 3:30 PM</i>, <i>Full
   * access · for 3 more days</i>, <i>Full access · until you remove it</i>, <i>… · expired Jan 1,
   * 2026, 1:00 AM; it will ask again</i>.
   */
  static String terms(Context context, CetpAdminState.ScopeAccess entry, long now) {
    String level =
        context.getString(
            entry.limited ? R.string.cetp_grant_access_limited : R.string.cetp_grant_access_full);
    return context.getString(R.string.cetp_grant_terms, level, expiry(context, entry, now));
  }

  /**
   * When the approval {@code entry} ends, as the platform says it of a setting that lapses: the
   * time of day within 24 hours, the days left (rounded up) after that, never, or when it did
   * (the provider says whether it has; {@code now} is its clock at that reading).
   */
  static String expiry(Context context, CetpAdminState.ScopeAccess entry, long now) {
    if (!entry.expires()) {
      return context.getString(R.string.cetp_grant_forever);
    }
    long at = entry.expiresAtMs;
    if (entry.expired) {
      return context.getString(R.string.cetp_grant_expired, date(context, at));
    }
    long left = Math.max(0, at - now);
    if (left < DAY_MS) {
      return context.getString(R.string.cetp_grant_until_time, time(context, at));
    }
    int days = (int) Math.min(Integer.MAX_VALUE, (left + DAY_MS - 1) / DAY_MS);
    return context.getResources().getQuantityString(R.plurals.cetp_grant_for_days, days, days);
  }

  /** The first 8 bytes of a hex SHA-256 digest, as {@code 5F:2A:91:C0:11:22:33:44…}. */
  static String shortFingerprint(String hex) {
    return fingerprint(hex, 16) + '\u2026';
  }

  /** The whole digest as {@code 5F:2A:…} (32 pairs). */
  static String fullFingerprint(String hex) {
    return fingerprint(hex, hex.length());
  }

  private static String fingerprint(String hex, int digits) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i + 1 < hex.length() && i < digits; i += 2) {
      if (i > 0) {
        out.append(':');
      }
      out.append(hex.substring(i, i + 2).toUpperCase(Locale.ROOT));
    }
    return out.toString();
  }

  /** A date and time in the screen's language (medium date, short time). */
  static String date(Context context, long ms) {
    return DateFormat.getDateTimeInstance(DateFormat.MEDIUM, DateFormat.SHORT, locale(context))
        .format(new Date(ms));
  }

  /** A time of day in the screen's language, in the 12- or 24-hour form the user chose. */
  static String time(Context context, long ms) {
    Locale locale = locale(context);
    String skeleton = android.text.format.DateFormat.is24HourFormat(context) ? "Hm" : "hm";
    String pattern = android.text.format.DateFormat.getBestDateTimePattern(locale, skeleton);
    return new SimpleDateFormat(pattern, locale).format(new Date(ms));
  }

  /** The language the screen's resources were chosen for. */
  @SuppressWarnings("deprecation") // Configuration.locale: the only one before API 24
  static Locale locale(Context context) {
    android.content.res.Configuration config = context.getResources().getConfiguration();
    return Build.VERSION.SDK_INT >= 24 ? config.getLocales().get(0) : config.locale;
  }
}
