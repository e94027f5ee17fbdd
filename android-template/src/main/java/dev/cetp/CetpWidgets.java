package dev.cetp;

import android.content.Context;
import android.content.pm.ApplicationInfo;
import android.content.pm.PackageManager;
import android.content.res.ColorStateList;
import android.content.res.Configuration;
import android.graphics.Color;
import android.graphics.Typeface;
import android.graphics.drawable.Drawable;
import android.graphics.drawable.GradientDrawable;
import android.graphics.drawable.RippleDrawable;
import android.text.BidiFormatter;
import android.text.TextUtils;
import android.util.TypedValue;
import android.view.Gravity;
import android.view.MotionEvent;
import android.view.View;
import android.view.ViewGroup;
import android.widget.Button;
import android.widget.ImageView;
import android.widget.LinearLayout;
import android.widget.RadioButton;
import android.widget.RadioGroup;
import android.widget.TextView;
import java.text.DateFormat;
import java.util.Date;
import java.util.Locale;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * What both approval screens are built from: the colours of the light and the night theme, text
 * styles, the buttons and choice rows that change a decision (which refuse obscured touches,
 * {@link #guard}), and
 * how an app is shown (icon, sanitized label, package, certificate fingerprint).
 *
 * <p>Colours are fixed per theme rather than taken from the device theme, so that body text keeps
 * at least 4.5:1 contrast (WCAG AA) whatever the vendor's palette; the suite measures it.
 */
final class CetpWidgets {
  /** Touch targets of decision controls, in dp (Android's accessibility minimum). */
  static final int MIN_TOUCH_DP = 48;

  /** Labels are cut to this many characters (after sanitizing). */
  static final int MAX_LABEL_CHARS = 60;

  final Context context;
  final boolean night;
  final int surface;
  final int onSurface;
  final int secondary;
  final int accent;
  final int onAccent;
  final int outline;
  final int tonal;

  CetpWidgets(Context context) {
    this.context = context;
    this.night = isNight(context);
    if (night) {
      surface = 0xFF2B2A30;
      onSurface = 0xFFE6E1E6;
      secondary = 0xFFCAC4CF;
      accent = 0xFFA8C7FA;
      onAccent = 0xFF062E6F;
      outline = 0xFF938F99;
      tonal = 0xFF3B3A41;
    } else {
      surface = 0xFFFFFFFF;
      onSurface = 0xFF1B1B1F;
      secondary = 0xFF46464F;
      accent = 0xFF0B57D0;
      onAccent = 0xFFFFFFFF;
      outline = 0xFF777680;
      tonal = 0xFFEEEDF4;
    }
  }

  static boolean isNight(Context context) {
    int mode = context.getResources().getConfiguration().uiMode & Configuration.UI_MODE_NIGHT_MASK;
    return mode == Configuration.UI_MODE_NIGHT_YES;
  }

  String s(String name, Object... args) {
    return CetpStrings.get(context, name, args);
  }

  int dp(float value) {
    return Math.round(
        TypedValue.applyDimension(
            TypedValue.COMPLEX_UNIT_DIP, value, context.getResources().getDisplayMetrics()));
  }

  // ------------------------------------------------------------------------------------------
  // Layout and text

  LinearLayout column() {
    LinearLayout layout = new LinearLayout(context);
    layout.setOrientation(LinearLayout.VERTICAL);
    return layout;
  }

  TextView text(CharSequence value, float sp, int color) {
    TextView view = new TextView(context);
    view.setText(value);
    view.setTextSize(TypedValue.COMPLEX_UNIT_SP, sp);
    view.setTextColor(color);
    view.setLineSpacing(0, 1.15f);
    view.setTextAlignment(View.TEXT_ALIGNMENT_VIEW_START);
    return view;
  }

  /** Body text: 16 sp, primary colour. */
  TextView body(CharSequence value) {
    return text(value, 16, onSurface);
  }

  /** Secondary text: 14 sp. */
  TextView secondaryText(CharSequence value) {
    return text(value, 14, secondary);
  }

  /** A headline: 24 sp (the dialog question) or 22 sp (the grants screen). */
  TextView headline(CharSequence value, float sp) {
    TextView view = text(value, sp, onSurface);
    view.setTypeface(Typeface.create("sans-serif", Typeface.NORMAL));
    view.setLineSpacing(0, 1.1f);
    return view;
  }

  /** A section label: 14 sp medium, accent-free. */
  TextView sectionLabel(CharSequence value) {
    TextView view = text(value, 14, secondary);
    view.setTypeface(Typeface.create("sans-serif-medium", Typeface.NORMAL));
    view.setPadding(0, dp(16), 0, dp(4));
    return view;
  }

  static LinearLayout.LayoutParams matchWidth() {
    return new LinearLayout.LayoutParams(
        ViewGroup.LayoutParams.MATCH_PARENT, ViewGroup.LayoutParams.WRAP_CONTENT);
  }

  static LinearLayout.LayoutParams matchWidth(int top) {
    LinearLayout.LayoutParams p = matchWidth();
    p.topMargin = top;
    return p;
  }

  GradientDrawable rounded(int color, float radiusDp) {
    GradientDrawable d = new GradientDrawable();
    d.setColor(color);
    d.setCornerRadius(dp(radiusDp));
    return d;
  }

  // ------------------------------------------------------------------------------------------
  // Decision controls

  /**
   * Whether {@code event} came through while another window covered this one, wholly or in part.
   * {@code setFilterTouchesWhenObscured} only catches the first; an overlay over the text that
   * leaves the button free sets only {@link MotionEvent#FLAG_WINDOW_IS_PARTIALLY_OBSCURED}.
   */
  static boolean obscured(MotionEvent event) {
    return (event.getFlags()
            & (MotionEvent.FLAG_WINDOW_IS_OBSCURED | MotionEvent.FLAG_WINDOW_IS_PARTIALLY_OBSCURED))
        != 0;
  }

  /**
   * Makes {@code control} refuse touches that arrive while another window covers this one: the
   * platform's filter for wholly obscured windows, and a touch filter for partly obscured ones
   * (which consumes such events before the view sees them, so they never press or click it).
   */
  static <V extends View> V guard(V control) {
    control.setFilterTouchesWhenObscured(true);
    control.setOnTouchListener((view, event) -> obscured(event));
    return control;
  }

  /** A full-width, 48 dp+ button: filled with the accent ({@code primary}) or tonal. */
  Button button(String label, String tag, boolean primary) {
    Button b = guard(new Button(context));
    styleButton(b, label, tag, primary);
    return b;
  }

  /** A 48 dp+ button outlined on a card (the card already has the tonal colour). */
  Button outlinedButton(String label, String tag) {
    Button b = guard(new Button(context));
    styleButton(b, label, tag, false);
    GradientDrawable shape = rounded(Color.TRANSPARENT, 24);
    shape.setStroke(dp(1), outline);
    b.setBackground(
        new RippleDrawable(
            ColorStateList.valueOf(withAlpha(onSurface, 0x1F)), shape, rounded(Color.BLACK, 24)));
    b.setTextColor(accentText());
    return b;
  }

  /** The accent as a text colour: on the light theme's surfaces the accent itself. */
  int accentText() {
    return accent;
  }

  /** A button that only navigates (no decision): same look, no obscured-touch filter needed. */
  Button navigationButton(String label, String tag) {
    Button b = new Button(context);
    styleButton(b, label, tag, false);
    b.setBackground(ripple(Color.TRANSPARENT));
    b.setTextColor(accentText());
    return b;
  }

  private void styleButton(Button b, String label, String tag, boolean primary) {
    b.setText(label);
    b.setTag(tag);
    b.setAllCaps(false);
    b.setTextSize(TypedValue.COMPLEX_UNIT_SP, 16);
    b.setTypeface(Typeface.create("sans-serif-medium", Typeface.NORMAL));
    b.setMinHeight(dp(MIN_TOUCH_DP));
    b.setMinimumHeight(dp(MIN_TOUCH_DP));
    b.setMinWidth(dp(MIN_TOUCH_DP));
    b.setMinimumWidth(dp(MIN_TOUCH_DP));
    b.setPadding(dp(24), dp(10), dp(24), dp(10));
    b.setStateListAnimator(null);
    b.setElevation(0);
    b.setTextColor(
        new ColorStateList(
            new int[][] {{-android.R.attr.state_enabled}, {}},
            new int[] {withAlpha(primary ? onAccent : onSurface, 0x99), primary ? onAccent : onSurface}));
    b.setBackground(ripple(primary ? accent : tonal));
  }

  private Drawable ripple(int color) {
    GradientDrawable shape = rounded(color, 24);
    GradientDrawable mask = rounded(Color.BLACK, 24);
    return new RippleDrawable(ColorStateList.valueOf(withAlpha(onSurface, 0x1F)), shape, mask);
  }

  static int withAlpha(int color, int alpha) {
    return (color & 0x00FFFFFF) | (alpha << 24);
  }

  /** A radio row of a choice group: full width, at least 48 dp tall. */
  RadioButton choice(RadioGroup group, String label, String tag) {
    RadioButton b = guard(new RadioButton(context));
    b.setId(View.generateViewId());
    b.setText(label);
    b.setTag(tag);
    b.setTextSize(TypedValue.COMPLEX_UNIT_SP, 16);
    b.setTextColor(onSurface);
    b.setButtonTintList(
        new ColorStateList(
            new int[][] {{android.R.attr.state_checked}, {}}, new int[] {accent, secondary}));
    b.setMinHeight(dp(MIN_TOUCH_DP));
    b.setMinimumHeight(dp(MIN_TOUCH_DP));
    b.setPadding(dp(12), dp(4), dp(4), dp(4));
    b.setGravity(Gravity.CENTER_VERTICAL | Gravity.START);
    group.addView(b, new RadioGroup.LayoutParams(ViewGroup.LayoutParams.MATCH_PARENT, ViewGroup.LayoutParams.WRAP_CONTENT));
    return b;
  }

  // ------------------------------------------------------------------------------------------
  // Apps

  /**
   * The app's label, made safe to show: the platform's sanitizer (first line only, trimmed, no
   * control characters, HTML-like markup taken as text), then bidi controls removed and the
   * length bounded; the package name if there is no label or the app is not visible.
   */
  @SuppressWarnings("deprecation") // getApplicationInfo(String, int): API 33 added a flags class
  String appLabel(String pkg) {
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
    CharSequence cleaned =
        TextUtils.makeSafeForPresentation(
            raw,
            1000,
            0,
            TextUtils.SAFE_STRING_FLAG_TRIM | TextUtils.SAFE_STRING_FLAG_FIRST_LINE);
    StringBuilder out = new StringBuilder();
    String text = cleaned.toString();
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

  /** Wraps text an app chose so its direction cannot reorder the sentence around it. */
  static String isolate(String text) {
    return BidiFormatter.getInstance().unicodeWrap(text);
  }

  /** The app's icon (the platform's default icon when it is not visible). */
  @SuppressWarnings("deprecation")
  ImageView appIcon(String pkg, int sizeDp) {
    ImageView icon = new ImageView(context);
    Drawable d;
    PackageManager pm = context.getPackageManager();
    try {
      ApplicationInfo info = pm.getApplicationInfo(pkg, 0);
      d = pm.getApplicationIcon(info);
    } catch (PackageManager.NameNotFoundException | RuntimeException e) {
      d = pm.getDefaultActivityIcon();
    }
    icon.setImageDrawable(d);
    icon.setImportantForAccessibility(View.IMPORTANT_FOR_ACCESSIBILITY_NO);
    int size = dp(sizeDp);
    icon.setLayoutParams(new LinearLayout.LayoutParams(size, size));
    return icon;
  }

  static String firstCertificate(JSONObject pkg) {
    JSONArray certs = pkg.optJSONArray("certificate_sha256");
    if (certs != null) {
      return certs.length() == 0 ? null : certs.optString(0);
    }
    return pkg.isNull("certificate_sha256") ? null : pkg.optString("certificate_sha256", null);
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

  /**
   * The certificate line of an app: short fingerprint, and the whole one when tapped (again:
   * short). Not a decision control.
   */
  TextView certificateLine(String certificate, String tag) {
    String shortText =
        certificate == null || certificate.isEmpty()
            ? s("cetp_certificate_unknown")
            : s("cetp_certificate", shortFingerprint(certificate));
    TextView view = secondaryText(shortText);
    view.setTag(tag);
    view.setTextDirection(View.TEXT_DIRECTION_LTR);
    if (certificate != null && !certificate.isEmpty()) {
      String longText = s("cetp_certificate", fullFingerprint(certificate));
      view.setMinHeight(dp(MIN_TOUCH_DP));
      view.setGravity(Gravity.CENTER_VERTICAL | Gravity.START);
      view.setOnClickListener(
          v -> view.setText(view.getText().toString().equals(shortText) ? longText : shortText));
    }
    return view;
  }

  static String date(long ms) {
    return DateFormat.getDateTimeInstance(DateFormat.MEDIUM, DateFormat.SHORT).format(new Date(ms));
  }

  static JSONArray array(JSONObject o, String key) {
    JSONArray a = o == null ? null : o.optJSONArray(key);
    return a == null ? new JSONArray() : a;
  }
}
