package dev.cetp;

import android.content.Context;
import android.content.pm.PackageManager;
import android.graphics.drawable.Drawable;
import android.os.Build;
import android.text.TextUtils;
import android.view.LayoutInflater;
import android.view.MotionEvent;
import android.view.View;
import android.view.ViewGroup;
import android.widget.ImageView;
import android.widget.TextView;
import org.jspecify.annotations.NullUnmarked;

/**
 * The views both screens share besides their layouts: how an app is shown (icon, sanitized label,
 * certificate fingerprint), a row of what it has for one scope, and the touch filter of decision
 * controls. The words themselves come from {@link CetpFormat}.
 */
@NullUnmarked
final class CetpViews {
  private CetpViews() {}

  /** Labels are cut to this many characters (after sanitizing). */
  static final int MAX_LABEL_CHARS = 60;

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
        context.getString(R.string.cetp_certificate, CetpFormat.leftToRight(context, CetpFormat.shortFingerprint(certificate)));
    String longText =
        context.getString(R.string.cetp_certificate, CetpFormat.leftToRight(context, CetpFormat.fullFingerprint(certificate)));
    view.setText(shortText);
    view.setOnClickListener(
        v -> view.setText(view.getText().toString().equals(shortText) ? longText : shortText));
  }

  /**
   * Adds a {@code cetp_scope_row} to {@code parent} for {@code entry}: the scope in the provider's
   * words ({@code state}'s; "tools that need no scope" for none) over its access and expiry.
   */
  static void addScopeRow(
      Context context, ViewGroup parent, CetpAdminState state, CetpAdminState.ScopeAccess entry) {
    CharSequence what =
        entry.scope == null
            ? context.getString(R.string.cetp_grant_scopes_any)
            : context.getString(
                R.string.cetp_grant_scopes,
                CetpFormat.isolate(context, state.scopeWords(entry.scope)));
    addScopeRow(parent, what, CetpFormat.terms(context, entry, state.nowMs));
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
}
