package dev.cetp.testkit.internal;

import android.app.Activity;
import android.graphics.Bitmap;
import android.graphics.Color;
import android.graphics.Rect;
import android.graphics.Typeface;
import android.text.Layout;
import android.util.DisplayMetrics;
import android.util.TypedValue;
import android.view.View;
import android.view.ViewGroup;
import android.widget.CompoundButton;
import android.widget.ScrollView;
import android.widget.TextView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Accessibility checks on a rendered screen, from its view tree and its pixels:
 *
 * <ul>
 *   <li>every clickable control is at least 48 × 48 dp;
 *   <li>every clickable control has a label TalkBack can read (its text or content description);
 *   <li>every text has a contrast of at least 4.5:1 (3:1 for large text: 18 sp, or 14 sp bold)
 *       against the background it is actually drawn on, measured on the rendered screen where it
 *       shows (the part a scrolling view clips away is measured by {@link #problemsScrolledThrough}
 *       scrolled into view);
 *   <li>nothing is cut off: no text is ellipsized or taller than its view, and no view reaches past
 *       the screen's sides.
 * </ul>
 *
 * {@link #problems} lists every violation in words; tests assert that the list is empty.
 */
public final class Accessibility {
  private Accessibility() {}

  public static final int MIN_TOUCH_DP = 48;

  /** Every violation on {@code activity}'s window, rendered as {@code screen}. */
  public static List<String> problems(Activity activity, Bitmap screen) {
    List<String> out = new ArrayList<>();
    View decor = activity.getWindow().getDecorView();
    int[] origin = Screenshots.windowOrigin(activity);
    visit(decor, activity.getResources().getDisplayMetrics(), screen, origin, out);
    return out;
  }

  /**
   * {@link #problems} of {@code screen} (the window as rendered now), then of the window rendered
   * with each scrolling view scrolled to its end, so that what shows only after scrolling is
   * checked too; each problem once. The scroll positions are put back.
   */
  public static List<String> problemsScrolledThrough(Activity activity, Bitmap screen) {
    Set<String> out = new LinkedHashSet<>(problems(activity, screen));
    List<ScrollView> scrolling = new ArrayList<>();
    collectScrolling(activity.getWindow().getDecorView(), scrolling);
    for (ScrollView view : scrolling) {
      int before = view.getScrollY();
      view.scrollTo(0, Integer.MAX_VALUE / 2);
      out.addAll(problems(activity, Screenshots.render(activity)));
      view.scrollTo(0, before);
    }
    return new ArrayList<>(out);
  }

  private static void collectScrolling(View view, List<ScrollView> into) {
    if (view.getVisibility() != View.VISIBLE) {
      return;
    }
    if (view instanceof ScrollView && view.canScrollVertically(1)) {
      into.add((ScrollView) view);
    }
    if (view instanceof ViewGroup) {
      ViewGroup group = (ViewGroup) view;
      for (int i = 0; i < group.getChildCount(); i++) {
        collectScrolling(group.getChildAt(i), into);
      }
    }
  }

  private static void visit(View view, DisplayMetrics dm, Bitmap screen, int[] origin, List<String> out) {
    if (view.getVisibility() != View.VISIBLE) {
      return;
    }
    String name = describe(view);
    int[] at = new int[2];
    view.getLocationInWindow(at);
    int left = origin[0] + at[0];
    int top = origin[1] + at[1];
    if (view.isClickable() && view.isEnabled() || view instanceof CompoundButton) {
      float wDp = view.getWidth() / dm.density;
      float hDp = view.getHeight() / dm.density;
      if (wDp < MIN_TOUCH_DP - 0.5f || hDp < MIN_TOUCH_DP - 0.5f) {
        out.add(name + " is " + Math.round(wDp) + "x" + Math.round(hDp) + " dp, below 48x48 dp");
      }
      CharSequence label =
          view.getContentDescription() != null
              ? view.getContentDescription()
              : view instanceof TextView ? ((TextView) view).getText() : null;
      if (label == null || label.toString().trim().isEmpty()) {
        out.add(name + " has no label for TalkBack");
      }
    }
    if (left < 0 || left + view.getWidth() > screen.getWidth()) {
      if (view.getWidth() > 0) {
        out.add(name + " reaches past the screen's side (x " + left + ".." + (left + view.getWidth()) + ")");
      }
    }
    if (view instanceof TextView && !(view instanceof android.widget.EditText)) {
      TextView text = (TextView) view;
      CharSequence value = text.getText();
      if (value != null && value.length() > 0 && view.getWidth() > 0 && view.getHeight() > 0) {
        checkText(text, name, dm, screen, origin, left, top, out);
      }
    }
    if (view instanceof ViewGroup) {
      ViewGroup group = (ViewGroup) view;
      for (int i = 0; i < group.getChildCount(); i++) {
        visit(group.getChildAt(i), dm, screen, origin, out);
      }
    }
  }

  private static void checkText(
      TextView text,
      String name,
      DisplayMetrics dm,
      Bitmap screen,
      int[] origin,
      int left,
      int top,
      List<String> out) {
    Layout layout = text.getLayout();
    if (layout == null) {
      out.add(name + " was never laid out");
      return;
    }
    for (int line = 0; line < layout.getLineCount(); line++) {
      if (layout.getEllipsisCount(line) > 0) {
        out.add(name + " is cut off (ellipsized) on line " + line);
      }
    }
    int room = text.getHeight() - text.getCompoundPaddingTop() - text.getCompoundPaddingBottom();
    if (layout.getHeight() > room + 1) {
      out.add(name + " needs " + layout.getHeight() + " px but has " + room);
    }
    // Contrast: the text colour against the most common colour in the text's box on screen.
    // Only where the text shows: a scrolling parent may clip part or all of it away (other
    // views are drawn there).
    Rect shown = new Rect();
    if (!text.getGlobalVisibleRect(shown)) {
      return;
    }
    shown.offset(origin[0], origin[1]);
    int x0 = Math.max(Math.max(0, shown.left), left + text.getCompoundPaddingLeft());
    int y0 = Math.max(Math.max(0, shown.top), top + text.getCompoundPaddingTop());
    int x1 =
        Math.min(
            Math.min(screen.getWidth(), shown.right),
            left + text.getWidth() - text.getCompoundPaddingRight());
    int y1 =
        Math.min(
            Math.min(screen.getHeight(), shown.bottom),
            top + text.getCompoundPaddingTop() + Math.min(layout.getHeight(), room));
    if (x1 <= x0 || y1 <= y0) {
      return;
    }
    int background = dominant(screen, x0, y0, x1, y1);
    int foreground = text.getCurrentTextColor();
    double ratio = contrast(blend(foreground, background), background);
    float sp = text.getTextSize() / dm.scaledDensity;
    Typeface face = text.getTypeface();
    boolean bold = face != null && face.isBold();
    boolean large = sp >= 18 || (sp >= 14 && bold);
    double needed = large ? 3.0 : 4.5;
    if (ratio < needed) {
      out.add(
          String.format(
              "%s: contrast %.2f:1 (#%06X on #%06X), needs %.1f:1",
              name, ratio, foreground & 0xFFFFFF, background & 0xFFFFFF, needed));
    }
  }

  /** The most frequent colour in the box (the background: text covers a small part of it). */
  private static int dominant(Bitmap screen, int x0, int y0, int x1, int y1) {
    Map<Integer, Integer> counts = new HashMap<>();
    int best = 0;
    int bestCount = -1;
    for (int y = y0; y < y1; y += 1) {
      for (int x = x0; x < x1; x += 1) {
        int c = screen.getPixel(x, y) | 0xFF000000;
        int n = counts.merge(c, 1, Integer::sum);
        if (n > bestCount) {
          best = c;
          bestCount = n;
        }
      }
    }
    return best;
  }

  private static int blend(int fg, int bg) {
    float a = Color.alpha(fg) / 255f;
    int r = Math.round(Color.red(fg) * a + Color.red(bg) * (1 - a));
    int g = Math.round(Color.green(fg) * a + Color.green(bg) * (1 - a));
    int b = Math.round(Color.blue(fg) * a + Color.blue(bg) * (1 - a));
    return Color.rgb(r, g, b);
  }

  /** WCAG 2 contrast ratio of two opaque colours. */
  public static double contrast(int a, int b) {
    double la = luminance(a);
    double lb = luminance(b);
    return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
  }

  private static double luminance(int c) {
    return 0.2126 * channel(Color.red(c)) + 0.7152 * channel(Color.green(c)) + 0.0722 * channel(Color.blue(c));
  }

  private static double channel(int v) {
    double s = v / 255.0;
    return s <= 0.03928 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4);
  }

  private static String describe(View view) {
    String kind = view.getClass().getSimpleName();
    Object tag = view.getTag();
    String text = view instanceof TextView ? " \"" + abbreviate(((TextView) view).getText()) + "\"" : "";
    return kind + (tag == null ? "" : " " + tag) + text;
  }

  private static String abbreviate(CharSequence text) {
    String s = text == null ? "" : text.toString();
    return s.length() > 40 ? s.substring(0, 40) + "…" : s;
  }

  /** {@code sp} in pixels on {@code dm}. */
  static float sp(DisplayMetrics dm, float sp) {
    return TypedValue.applyDimension(TypedValue.COMPLEX_UNIT_SP, sp, dm);
  }
}
