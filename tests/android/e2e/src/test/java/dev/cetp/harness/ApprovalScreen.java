package dev.cetp.harness;

import static org.robolectric.Shadows.shadowOf;

import android.app.Activity;
import android.content.Intent;
import android.content.pm.PackageManager;
import android.content.pm.ResolveInfo;
import android.os.Looper;
import android.view.View;
import android.view.ViewGroup;
import android.widget.Button;
import android.widget.LinearLayout;
import android.widget.RadioButton;
import android.widget.RadioGroup;
import android.widget.TextView;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
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
 * (found by their {@code cetp:*} tags, see the Activity's class comment).
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

  /** Opens the screen with {@code intent} as is (an explicit launch: no resolution). */
  public static ApprovalScreen launchExplicit(Intent intent) {
    return new ApprovalScreen(Robolectric.buildActivity(activityClass(), intent).setup());
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
    return this;
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
      Method admin = Class.forName("dev.cetp.NativeBridge").getDeclaredMethod("admin", String.class);
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
