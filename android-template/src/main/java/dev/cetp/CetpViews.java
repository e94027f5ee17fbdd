package dev.cetp;

import android.content.Context;
import android.content.pm.PackageManager;
import android.graphics.drawable.Drawable;
import android.os.Build;
import android.text.BidiFormatter;
import android.text.TextDirectionHeuristics;
import android.text.TextUtils;
import android.view.LayoutInflater;
import android.view.MotionEvent;
import android.view.View;
import android.view.ViewGroup;
import android.widget.ImageView;
import android.widget.TextView;
import java.text.DateFormat;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.Locale;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * What both approval screens share besides their layouts: how an app is shown (icon, sanitized
 * label, certificate fingerprint), what it has per scope (access and expiry), the touch filter of
 * decision controls, dates and times in the screen's language, and reading the admin JSON.
 */
final class CetpViews {
  private CetpViews() {}

  /** Labels are cut to this many characters (after sanitizing). */
  static final int MAX_LABEL_CHARS = 60;

  static final long MINUTE_MS = 60_000L;
  static final long DAY_MS = 24 * 60 * MINUTE_MS;

  /**
   * Whether {@code event} came through while another window covered this one, wholly or in part.
   * {@code filterTouchesWhenObscured} (set by the layouts' styles) only catches the first; an
   * overlay over the text that leaves the button free sets only {@link
   * MotionEvent#FLAG_WINDOW_IS_PARTIALLY_OBSCURED}.
   */
  static boolean obscured(MotionEvent event) {
    return (event.getFlags()
            & (MotionEvent.FLAG_WINDOW_IS_OBSCURED | MotionEvent.FLAG_WINDOW_IS_PARTIALLY_OBSCURED))
        != 0;
  }

  /**
   * Makes each of {@code controls} refuse touches that arrive while another window covers the
   * screen: the platform's filter for wholly obscured windows, and a touch listener for partly
   * obscured ones (it consumes such events before the view sees them, so they never press or
   * click it).
   */
  static void guard(View... controls) {
    for (View control : controls) {
      control.setFilterTouchesWhenObscured(true);
      control.setOnTouchListener((view, event) -> obscured(event));
    }
  }

  /**
   * The app's label, made safe to show: the platform's sanitizer where it has one (first line
   * only, trimmed, no control characters, HTML-like markup taken as text), then bidi controls
   * removed and the length bounded; the package name if there is no label or the app is not
   * visible.
   */
  @SuppressWarnings("deprecation") // getApplicationInfo(String, int): API 33 added a flags class
  static String appLabel(Context context, String pkg) {
    try {
      PackageManager pm = context.getPackageManager();
      CharSequence label = pm.getApplicationLabel(pm.getApplicationInfo(pkg, 0));
      String safe = safeLabel(label == null ? "" : label.toString());
      if (!safe.isEmpty()) {
        return safe;
      }
    } catch (PackageManager.NameNotFoundException | RuntimeException e) {
      // Not visible to this app: the package name is what we know.
    }
    return safeLabel(pkg);
  }

  /** {@link #appLabel}'s sanitizer, for any text an app chose. */
  static String safeLabel(String raw) {
    String text;
    if (Build.VERSION.SDK_INT >= 29) {
      text =
          TextUtils.makeSafeForPresentation(
                  raw, 1000, 0, TextUtils.SAFE_STRING_FLAG_TRIM | TextUtils.SAFE_STRING_FLAG_FIRST_LINE)
              .toString();
    } else {
      int newline = raw.indexOf('\n');
      text = (newline >= 0 ? raw.substring(0, newline) : raw).trim();
    }
    StringBuilder out = new StringBuilder();
    int count = 0;
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      i += Character.charCount(cp);
      if (isBidiControl(cp) || Character.getType(cp) == Character.CONTROL) {
        continue;
      }
      if (count == MAX_LABEL_CHARS) {
        out.append('\u2026');
        break;
      }
      out.appendCodePoint(cp);
      count++;
    }
    return out.toString().trim();
  }

  private static boolean isBidiControl(int cp) {
    return (cp >= 0x202A && cp <= 0x202E)
        || (cp >= 0x2066 && cp <= 0x2069)
        || cp == 0x200E
        || cp == 0x200F
        || cp == 0x061C;
  }

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

  /** Shows the app's icon (the platform's default icon when the app is not visible). */
  @SuppressWarnings("deprecation") // getApplicationInfo(String, int): API 33 added a flags class
  static void showIcon(ImageView view, String pkg) {
    PackageManager pm = view.getContext().getPackageManager();
    Drawable icon;
    try {
      icon = pm.getApplicationIcon(pm.getApplicationInfo(pkg, 0));
    } catch (PackageManager.NameNotFoundException | RuntimeException e) {
      icon = pm.getDefaultActivityIcon();
    }
    view.setImageDrawable(icon);
  }

  /**
   * Fills the app card ({@code res/layout/cetp_app_card.xml}) inside {@code card} with the app
   * {@code pkg} signed by {@code certificate} (hex SHA-256, or null).
   */
  static void showApp(View card, String pkg, String certificate) {
    Context context = card.getContext();
    showIcon(card.findViewById(R.id.cetp_app_icon), pkg);
    ((TextView) card.findViewById(R.id.cetp_app_label)).setText(appLabel(context, pkg));
    ((TextView) card.findViewById(R.id.cetp_app_package)).setText(pkg);
    showCertificate(card.findViewById(R.id.cetp_certificate), certificate);
  }

  /**
   * A certificate line: the short fingerprint, and the whole one when tapped (again: the short
   * one). Not a decision control.
   */
  static void showCertificate(TextView view, String certificate) {
    Context context = view.getContext();
    if (certificate == null || certificate.isEmpty()) {
      view.setText(R.string.cetp_certificate_unknown);
      view.setClickable(false);
      return;
    }
    String shortText =
        context.getString(R.string.cetp_certificate, leftToRight(context, shortFingerprint(certificate)));
    String longText =
        context.getString(R.string.cetp_certificate, leftToRight(context, fullFingerprint(certificate)));
    view.setText(shortText);
    view.setOnClickListener(
        v -> view.setText(view.getText().toString().equals(shortText) ? longText : shortText));
  }

  static String firstCertificate(JSONObject pkg) {
    JSONArray certs = pkg.optJSONArray(Wire.ADMIN_KEY_CERTIFICATE_SHA256);
    if (certs != null) {
      return certs.length() == 0 ? null : certs.optString(0);
    }
    return optString(pkg, Wire.ADMIN_KEY_CERTIFICATE_SHA256);
  }

  /** {@code o}'s string under {@code key}, or null when it is absent or JSON null. */
  static String optString(JSONObject o, String key) {
    return o == null || o.isNull(key) ? null : o.optString(key, null);
  }

  /** Whether the approval {@code entry} gives limited access. */
  static boolean limited(JSONObject entry) {
    return Wire.ADMIN_ACCESS_LIMITED.equals(entry.optString(Wire.ADMIN_KEY_ACCESS));
  }

  /**
   * A scope's access and expiry as one line: <i>Limited access · until 3:30 PM</i>, <i>Full
   * access · for 3 more days</i>, <i>Full access · until you remove it</i>, <i>… · expired Jan 1,
   * 2026, 1:00 AM; it will ask again</i>.
   */
  static String terms(Context context, JSONObject entry, long now) {
    String level =
        context.getString(
            limited(entry) ? R.string.cetp_grant_access_limited : R.string.cetp_grant_access_full);
    return context.getString(R.string.cetp_grant_terms, level, expiry(context, entry, now));
  }

  /**
   * When the approval {@code entry} ends, as the platform says it of a setting that lapses: the
   * time of day within 24 hours, the days left (rounded up) after that, never, or when it did.
   */
  static String expiry(Context context, JSONObject entry, long now) {
    if (entry.isNull(Wire.ADMIN_KEY_EXPIRES_AT_MS)) {
      return context.getString(R.string.cetp_grant_forever);
    }
    long at = entry.optLong(Wire.ADMIN_KEY_EXPIRES_AT_MS);
    if (at <= now) {
      return context.getString(R.string.cetp_grant_expired, date(context, at));
    }
    long left = at - now;
    if (left < DAY_MS) {
      return context.getString(R.string.cetp_grant_until_time, time(context, at));
    }
    int days = (int) Math.min(Integer.MAX_VALUE, (left + DAY_MS - 1) / DAY_MS);
    return context.getResources().getQuantityString(R.plurals.cetp_grant_for_days, days, days);
  }

  /**
   * Adds a {@code cetp_scope_row} to {@code parent}: {@code what} (the scope in words) over
   * {@code terms} (its access and expiry).
   */
  static void addScopeRow(ViewGroup parent, CharSequence what, CharSequence terms) {
    View row = LayoutInflater.from(parent.getContext()).inflate(R.layout.cetp_scope_row, parent, false);
    ((TextView) row.findViewById(R.id.cetp_scope)).setText(what);
    ((TextView) row.findViewById(R.id.cetp_scope_terms)).setText(terms);
    parent.addView(row);
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

  static JSONArray array(JSONObject o, String key) {
    JSONArray a = o == null ? null : o.optJSONArray(key);
    return a == null ? new JSONArray() : a;
  }
}
