package dev.cetp.harness;

import static org.robolectric.Shadows.shadowOf;

import android.app.Activity;
import android.content.Intent;
import android.content.pm.PackageManager;
import android.content.pm.ResolveInfo;
import android.os.Looper;
import android.os.SystemClock;
import android.view.InputDevice;
import android.view.MotionEvent;
import android.view.View;
import android.view.ViewGroup;
import android.widget.Button;
import android.widget.LinearLayout;
import android.widget.RadioButton;
import android.widget.RadioGroup;
import android.widget.TextView;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.json.JSONException;
import org.json.JSONObject;
import org.robolectric.Robolectric;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.android.controller.ActivityController;

/**
 * Drives the template's approval screen ({@code dev.cetp.CetpAuthorizeActivity}, from the
 * bundle's app.jar) the way a user would: resolve the consumer's implicit intent, start the
 * Activity through its whole lifecycle ({@code setup()}), read what it shows, tap its controls
 * (found by their {@code cetp:*} tags, see the Activity's class comment). Launches let the main
 * looper's clock pass the delay before Allow is enabled, as a user reading the dialog would.
 */
public final class ApprovalScreen implements AutoCloseable {
  public static final String ACTIVITY = "dev.cetp.CetpAuthorizeActivity";

  private final ActivityController<? extends Activity> controller;

  private ApprovalScreen(ActivityController<? extends Activity> controller) {
    this.controller = controller;
  }

  /**
   * The activities that {@code action} resolves to for {@code startActivity} (an implicit intent
   * gets {@code CATEGORY_DEFAULT}, hence {@code MATCH_DEFAULT_ONLY}).
   */
  public static List<ResolveInfo> resolve(String action) {
    return RuntimeEnvironment.getApplication()
        .getPackageManager()
        .queryIntentActivities(new Intent(action), PackageManager.MATCH_DEFAULT_ONLY);
  }

  /**
   * Opens the screen for the implicit {@code intent} as the platform would: it must resolve to
   * exactly the template's Activity, which is then created, started and resumed with that intent
   * (extras included).
   */
  public static ApprovalScreen launch(Intent intent) {
    List<ResolveInfo> found = resolve(intent.getAction());
    if (found.size() != 1 || !ACTIVITY.equals(found.get(0).activityInfo.name)) {
      throw new AssertionError(intent.getAction() + " resolves to " + found + ", not " + ACTIVITY);
    }
    return launchExplicit(intent);
  }

  /**
   * {@link #launch}, as the app {@code callingPackage} does it with {@code startActivityForResult}
   * ({@code getCallingPackage()} names it; Robolectric reports no launching UID otherwise).
   */
  public static ApprovalScreen launchFrom(String callingPackage, Intent intent) {
    List<ResolveInfo> found = resolve(intent.getAction());
    if (found.size() != 1 || !ACTIVITY.equals(found.get(0).activityInfo.name)) {
      throw new AssertionError(intent.getAction() + " resolves to " + found + ", not " + ACTIVITY);
    }
    return start(intent, callingPackage, true);
  }

  /** Opens the screen with {@code intent} as is (an explicit launch: no resolution). */
  public static ApprovalScreen launchExplicit(Intent intent) {
    return start(intent, null, true);
  }

  /**
   * {@link #launch} without letting the main looper's clock pass: Allow is still disabled
   * ({@link #allowDelay()}).
   */
  public static ApprovalScreen launchWithoutWaiting(Intent intent) {
    return start(intent, null, false);
  }

  private static ApprovalScreen start(Intent intent, String callingPackage, boolean wait) {
    // The template's manifest requests HIDE_OVERLAY_WINDOWS; Robolectric's application does not.
    shadowOf(RuntimeEnvironment.getApplication())
        .grantPermissions(android.Manifest.permission.HIDE_OVERLAY_WINDOWS);
    ActivityController<? extends Activity> controller = Robolectric.buildActivity(activityClass(), intent);
    if (callingPackage != null) {
      shadowOf(controller.get()).setCallingPackage(callingPackage);
    }
    controller.setup();
    ApprovalScreen screen = new ApprovalScreen(controller);
    if (wait) {
      screen.waitForAllow();
    }
    return screen;
  }

  /** How long the screen keeps Allow disabled after showing a request. */
  public static Duration allowDelay() {
    try {
      return Duration.ofMillis(activityClass().getField("ALLOW_ENABLE_DELAY_MS").getLong(null));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Lets the main looper's clock run past the Allow delay (the user reads the dialog). */
  public ApprovalScreen waitForAllow() {
    shadowOf(Looper.getMainLooper()).idleFor(allowDelay());
    return this;
  }

  @SuppressWarnings("unchecked")
  private static Class<? extends Activity> activityClass() {
    try {
      return (Class<? extends Activity>) Class.forName(ACTIVITY);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(ACTIVITY + " is not in the bundle's app.jar", e);
    }
  }

  public Activity activity() {
    return controller.get();
  }

  /** Every text the screen shows (labels, buttons, radio buttons), top to bottom. */
  public List<String> texts() {
    List<String> out = new ArrayList<>();
    collect(content(), out);
    return out;
  }

  /** {@link #texts()}, one per line. */
  public String text() {
    return String.join("\n", texts());
  }

  private static void collect(View view, List<String> out) {
    if (view.getVisibility() != View.VISIBLE) {
      return;
    }
    if (view instanceof TextView) {
      CharSequence text = ((TextView) view).getText();
      if (text != null && text.length() > 0) {
        out.add(text.toString());
      }
    }
    if (view instanceof ViewGroup) {
      ViewGroup group = (ViewGroup) view;
      for (int i = 0; i < group.getChildCount(); i++) {
        collect(group.getChildAt(i), out);
      }
    }
  }

  /**
   * The screen as text, one line per row, top to bottom: texts as they are, a radio group on one
   * line ({@code (•)} selected, {@code ( )} not), buttons as {@code [Label]} (side by side when
   * they share a row).
   */
  public List<String> sketch() {
    List<String> out = new ArrayList<>();
    sketch(content(), out);
    return out;
  }

  private static void sketch(View view, List<String> out) {
    if (view.getVisibility() != View.VISIBLE) {
      return;
    }
    if (view instanceof RadioGroup) {
      List<String> choices = new ArrayList<>();
      RadioGroup group = (RadioGroup) view;
      for (int i = 0; i < group.getChildCount(); i++) {
        RadioButton b = (RadioButton) group.getChildAt(i);
        choices.add((b.isChecked() ? "(\u2022) " : "( ) ") + b.getText());
      }
      out.add(String.join("  ", choices));
    } else if (view instanceof Button) {
      out.add("[" + ((Button) view).getText() + "]");
    } else if (view instanceof TextView) {
      CharSequence text = ((TextView) view).getText();
      if (text != null && text.length() > 0) {
        out.add(text.toString());
      }
    } else if (view instanceof LinearLayout
        && ((LinearLayout) view).getOrientation() == LinearLayout.HORIZONTAL
        && ((LinearLayout) view).getChildCount() > 0
        && ((LinearLayout) view).getChildAt(0) instanceof Button) {
      List<String> row = new ArrayList<>();
      LinearLayout layout = (LinearLayout) view;
      for (int i = 0; i < layout.getChildCount(); i++) {
        sketch(layout.getChildAt(i), row);
      }
      out.add(String.join("  ", row));
    } else if (view instanceof ViewGroup) {
      ViewGroup group = (ViewGroup) view;
      for (int i = 0; i < group.getChildCount(); i++) {
        sketch(group.getChildAt(i), out);
      }
    }
  }

  /** What the Activity put on screen (its content view, without the window's title bar). */
  public View content() {
    return activity().findViewById(android.R.id.content);
  }

  /** The view tagged {@code tag}, or null. */
  public View find(String tag) {
    return activity().getWindow().getDecorView().findViewWithTag(tag);
  }

  /** Taps the view tagged {@code tag} (a button, or a radio button to select it). */
  public ApprovalScreen tap(String tag) {
    View view = find(tag);
    if (view == null) {
      throw new AssertionError("no view tagged " + tag + " on screen:\n" + text());
    }
    if (!view.isEnabled() || !view.isClickable()) {
      throw new AssertionError(tag + " cannot be tapped");
    }
    view.performClick();
    shadowOf(Looper.getMainLooper()).idle();
    waitForAllow();
    return this;
  }

  /**
   * Touches the view tagged {@code tag} as a finger would (down, then up, at its centre), the
   * events carrying {@code flags} ({@code MotionEvent.FLAG_WINDOW_IS_OBSCURED} or {@code
   * FLAG_WINDOW_IS_PARTIALLY_OBSCURED} for a touch through another app's window; 0 for a plain
   * touch). Returns whether the view took the touch. The looper runs the click it posts.
   */
  public boolean touch(String tag, int flags) {
    View view = find(tag);
    if (view == null) {
      throw new AssertionError("no view tagged " + tag + " on screen:\n" + text());
    }
    // Delivered to the view itself (its own coordinates): View.dispatchTouchEvent applies the
    // security filter first, as for a touch arriving through the window.
    float x = view.getWidth() / 2f;
    float y = view.getHeight() / 2f;
    long now = SystemClock.uptimeMillis();
    MotionEvent down = event(now, MotionEvent.ACTION_DOWN, x, y, flags);
    MotionEvent up = event(now + 50, MotionEvent.ACTION_UP, x, y, flags);
    boolean took = view.dispatchTouchEvent(down);
    took &= view.dispatchTouchEvent(up);
    down.recycle();
    up.recycle();
    shadowOf(Looper.getMainLooper()).idle();
    return took;
  }

  private static MotionEvent event(long time, int action, float x, float y, int flags) {
    MotionEvent.PointerProperties[] props = {new MotionEvent.PointerProperties()};
    props[0].id = 0;
    props[0].toolType = MotionEvent.TOOL_TYPE_FINGER;
    MotionEvent.PointerCoords[] coords = {new MotionEvent.PointerCoords()};
    coords[0].x = x;
    coords[0].y = y;
    coords[0].pressure = 1;
    coords[0].size = 1;
    return MotionEvent.obtain(
        time, time, action, 1, props, coords, 0, 0, 1, 1, 0, 0, InputDevice.SOURCE_TOUCHSCREEN, flags);
  }

  public boolean isFinishing() {
    return activity().isFinishing();
  }

  /** The result the screen set for the app that started it. */
  public int resultCode() {
    return shadowOf(activity()).getResultCode();
  }

  /** The Intent the screen started last (e.g. the grants screen), or null. */
  public Intent nextStartedActivity() {
    return shadowOf(activity()).getNextStartedActivity();
  }

  @Override
  public void close() {
    if (!activity().isDestroyed()) {
      controller.pause().stop().destroy();
    }
  }

  /**
   * The provider's admin state as the screen reads it ({@code NativeBridge.admin}, reached by
   * reflection because the class is package-private). Tests use it to learn request ids that a
   * malicious app might know, never to decide anything.
   */
  public static JSONObject adminState() {
    try {
      Method admin = Class.forName("dev.cetp.CetpRuntime").getDeclaredMethod("admin", String.class);
      admin.setAccessible(true);
      return new JSONObject((String) admin.invoke(null, "{\"op\":\"state\"}"))
          .getJSONObject("state");
    } catch (ClassNotFoundException
        | NoSuchMethodException
        | IllegalAccessException
        | InvocationTargetException
        | JSONException e) {
      throw new IllegalStateException(e);
    }
  }
}
