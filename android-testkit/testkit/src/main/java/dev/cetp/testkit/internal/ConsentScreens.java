package dev.cetp.testkit.internal;

import static org.robolectric.Shadows.shadowOf;

import android.app.Activity;
import android.content.ComponentName;
import android.content.Intent;
import android.content.pm.ActivityInfo;
import android.content.pm.PackageManager;
import android.content.pm.ResolveInfo;
import android.os.Binder;
import android.os.Looper;
import android.os.Process;
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
import dev.cetp.testkit.AppsWithAccess;
import dev.cetp.testkit.ConsentDialog;
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
 * Drives the template's consent screens (the consent dialog {@code dev.cetp.CetpAuthorizeActivity}
 * and its non-exported alias, Apps with access {@code dev.cetp.CetpGrantsActivity}, from the
 * bundle's app.jar) the way a user would: resolve the intent as the platform would, start the
 * Activity through its whole lifecycle ({@code setup()}), read what it shows, tap its controls.
 *
 * <p>The screens read the provider's state and save decisions on a background thread ({@code
 * CetpAdmin}); every launch, tap and touch waits for that work without sleeping ({@link
 * #settle()}: the worker's queue is drained, then the main looper runs the replies it posted), and
 * launches let the main looper's clock pass the delay before Allow is enabled, as a user reading
 * the dialog would.
 *
 * <p>Controls are named by keys: {@code cetp:<name>} is the view with id {@code cetp_<name>}
 * ({@code cetp:duration:day} is {@code cetp_duration_day}), and a last part that is a number picks
 * the n-th shown view with that id, in screen order ({@code cetp:revoke:1}: the second Remove
 * access; {@code cetp:app:<n>} is the n-th app label, {@code cetp_app_label}). Views that are not
 * shown (gone, or inside a gone parent) are not found, with one exception: a control of the
 * consent dialog behind More options (how long, how much) is reached as a user reaches it, by
 * tapping More options first ({@link #find}).
 */
public final class ConsentScreens implements AutoCloseable {
  public static final String ACTIVITY = "dev.cetp.CetpAuthorizeActivity";
  /** The consent dialog's non-exported entry for the app itself (an activity-alias). */
  public static final String OWN_ENTRY = "dev.cetp.CetpOwnRequestActivity";
  public static final String GRANTS = "dev.cetp.CetpGrantsActivity";

  private final ActivityController<? extends Activity> controller;

  private ConsentScreens(ActivityController<? extends Activity> controller) {
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
   * Opens the screen for {@code intent} as the platform would for the app whose call is current
   * ({@code Callers.setCallingUid}; an agent opens its {@code authorize_intent} right after its
   * call): the intent must resolve to exactly one of the template's screens. An exported screen is
   * started as that app's {@code startActivityForResult} would start it ({@code
   * getCallingPackage()} names it); a screen that is not exported can only have been started by
   * the app itself (its settings), so it is started that way.
   */
  public static ConsentScreens launch(Intent intent) {
    ActivityInfo target = resolveOne(intent);
    return start(intent, target, target.exported ? callingPackage() : null, true);
  }

  /**
   * {@link #launch}, as the app {@code callingPackage} does it with {@code startActivityForResult}.
   * The platform refuses another app a screen that is not exported (a {@link SecurityException},
   * as {@code ActivityTaskSupervisor.checkStartAnyActivityPermission} throws).
   */
  public static ConsentScreens launchFrom(String callingPackage, Intent intent) {
    ActivityInfo target = resolveOne(intent);
    requireStartable(uidOf(callingPackage), target, intent);
    return start(intent, target, callingPackage, true);
  }

  /**
   * The screen opened with a plain {@code startActivity} by an app Android does not name (before
   * API 34, or without {@code ActivityOptions.setShareIdentityEnabled}): no launching app.
   */
  public static ConsentScreens launchUnattributed(Intent intent) {
    ActivityInfo target = resolveOne(intent);
    requireStartable(-1, target, intent);
    return start(intent, target, null, true);
  }

  /** Opens the screen with {@code intent} as the app itself does (its PendingIntent, its settings). */
  public static ConsentScreens launchExplicit(Intent intent) {
    return start(intent, resolveOne(intent), null, true);
  }

  /**
   * {@link #launch} without letting the main looper's clock pass: Allow is still disabled
   * ({@link #allowDelay()}).
   */
  public static ConsentScreens launchWithoutWaiting(Intent intent) {
    ActivityInfo target = resolveOne(intent);
    return start(intent, target, target.exported ? callingPackage() : null, false);
  }

  /**
   * Whether the platform lets the app with {@code uid} start what {@code intent} names: another
   * app finds only exported activities when it resolves an implicit intent, and is refused a
   * component that is not exported ({@code ActivityTaskSupervisor.checkStartAnyActivityPermission}
   * throws a SecurityException). Robolectric does not check either; this is that rule, on the
   * components as the platform's PackageParser parsed them from the bundle's resource package.
   */
  public static boolean mayStart(int uid, Intent intent) {
    try {
      requireStartable(uid, resolveOne(intent), intent);
      return true;
    } catch (SecurityException e) {
      return false;
    }
  }

  private static void requireStartable(int uid, ActivityInfo target, Intent intent) {
    boolean self = uid == Process.myUid();
    if (!self && !target.exported) {
      throw new SecurityException(
          "Permission Denial: starting " + intent + " from uid " + uid + ": " + target.name
              + " is not exported");
    }
  }

  /** The one template screen {@code intent} starts (an alias resolved to itself). */
  @SuppressWarnings("deprecation") // getActivityInfo(ComponentName, int): API 33 flag classes
  private static ActivityInfo resolveOne(Intent intent) {
    PackageManager pm = RuntimeEnvironment.getApplication().getPackageManager();
    if (intent.getComponent() != null) {
      try {
        return pm.getActivityInfo(intent.getComponent(), PackageManager.GET_META_DATA);
      } catch (PackageManager.NameNotFoundException e) {
        throw new AssertionError(intent + " names no installed activity", e);
      }
    }
    List<ResolveInfo> found =
        pm.queryIntentActivities(intent, PackageManager.MATCH_DEFAULT_ONLY);
    if (found.size() != 1 || !isTemplateScreen(found.get(0).activityInfo.name)) {
      throw new AssertionError(
          intent.getAction() + " resolves to " + found + ", not to one of the template's screens");
    }
    return found.get(0).activityInfo;
  }

  private static boolean isTemplateScreen(String name) {
    return ACTIVITY.equals(name) || OWN_ENTRY.equals(name) || GRANTS.equals(name);
  }

  /** The package of the app whose call is current, or null (the app itself, or no package). */
  private static String callingPackage() {
    int uid = Binder.getCallingUid();
    if (uid == Process.myUid()) {
      return null;
    }
    String[] packages = RuntimeEnvironment.getApplication().getPackageManager().getPackagesForUid(uid);
    return packages == null || packages.length == 0 ? null : packages[0];
  }

  private static int uidOf(String pkg) {
    if (pkg.equals(RuntimeEnvironment.getApplication().getPackageName())) {
      return Process.myUid();
    }
    try {
      return RuntimeEnvironment.getApplication().getPackageManager().getPackageUid(pkg, 0);
    } catch (PackageManager.NameNotFoundException e) {
      throw new AssertionError(pkg + " is not installed", e);
    }
  }

  private static ConsentScreens start(
      Intent intent, ActivityInfo target, String callingPackage, boolean wait) {
    // The template's manifest requests HIDE_OVERLAY_WINDOWS; grant it as the installer would.
    shadowOf(RuntimeEnvironment.getApplication())
        .grantPermissions(android.Manifest.permission.HIDE_OVERLAY_WINDOWS);
    String className = target.targetActivity != null ? target.targetActivity : target.name;
    Intent started = new Intent(intent);
    if (started.getComponent() == null) {
      started.setComponent(new ComponentName(target.packageName, target.name));
    }
    ActivityController<? extends Activity> controller =
        Robolectric.buildActivity(activityClass(className), started);
    if (callingPackage != null) {
      shadowOf(controller.get()).setCallingPackage(callingPackage);
    }
    controller.setup();
    ConsentScreens screen = new ConsentScreens(controller);
    settle();
    if (wait) {
      screen.waitForAllow();
    }
    return screen;
  }

  /** How long the screen keeps Allow disabled after showing a request. */
  public static Duration allowDelay() {
    try {
      return Duration.ofMillis(activityClass(ACTIVITY).getField("ALLOW_ENABLE_DELAY_MS").getLong(null));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Lets the main looper's clock run past the Allow delay (the user reads the dialog). */
  public ConsentScreens waitForAllow() {
    shadowOf(Looper.getMainLooper()).idleFor(allowDelay());
    return this;
  }

  /**
   * The user leaves the screen open for {@code time}: the main looper's clock runs that long (what
   * the screen set to happen meanwhile, such as reading the state again when a request lapses,
   * happens), then what that started is waited for ({@link #settle()}). The provider's own clock
   * is the test's to move.
   */
  public ConsentScreens stayOpen(Duration time) {
    shadowOf(Looper.getMainLooper()).idleFor(time);
    settle();
    return this;
  }

  /**
   * Waits, without sleeping, until the screens' admin work is done: drains {@code CetpAdmin}'s
   * worker queue, runs what it posted to the main looper, and repeats while replies are still to
   * be delivered (a reply may ask for more).
   */
  public static void settle() {
    try {
      Class<?> admin = Class.forName("dev.cetp.CetpAdmin");
      Method awaitQueued = admin.getDeclaredMethod("awaitQueued");
      Method busy = admin.getDeclaredMethod("busy");
      awaitQueued.setAccessible(true);
      busy.setAccessible(true);
      for (int round = 0; round < 100; round++) {
        awaitQueued.invoke(null);
        shadowOf(Looper.getMainLooper()).idle();
        if (!(Boolean) busy.invoke(null)) {
          return;
        }
      }
    } catch (InvocationTargetException e) {
      throw new IllegalStateException("CetpAdmin failed", e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot reach dev.cetp.CetpAdmin", e);
    }
    throw new AssertionError("the screens' admin calls did not settle in 100 rounds");
  }

  @SuppressWarnings("unchecked")
  private static Class<? extends Activity> activityClass(String name) {
    try {
      return (Class<? extends Activity>) Class.forName(name);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(name + " is not in the bundle's app.jar", e);
    }
  }

  public Activity activity() {
    return controller.get();
  }

  /**
   * The user leaves the screen (another Activity covers it: pause, stop) and comes back
   * (restart, start, resume); what it reads on the way back is waited for.
   */
  public ConsentScreens leaveAndReturn() {
    controller.pause().stop().restart().start().resume();
    settle();
    return this;
  }

  /** Recreates the screen as a configuration change (rotation) does; its saved state carries over. */
  public ConsentScreens recreate() {
    controller.recreate();
    return this;
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

  /**
   * The shown view named by {@code key} (see the class comment), or null. When it is not shown
   * and the consent dialog's More options is (its choices closed), More options is tapped and
   * the view looked for again: a control behind it is one tap away for the user too. When it is
   * not there either, More options is tapped again (the screen is left as it was).
   */
  public View find(String key) {
    View found = findShown(key);
    if (found != null || key.equals("cetp:more")) {
      return found;
    }
    View more = findShown("cetp:more");
    View details = findShown("cetp:details");
    if (more == null || details != null || !more.isEnabled()) {
      return null;
    }
    more.performClick();
    shadowOf(Looper.getMainLooper()).idle();
    found = findShown(key);
    if (found == null) {
      // Not behind More options either: closed again, the screen as it was.
      more.performClick();
      shadowOf(Looper.getMainLooper()).idle();
    }
    return found;
  }

  private View findShown(String key) {
    String[] parts = key.split(":");
    if (parts.length < 2 || !parts[0].equals("cetp")) {
      throw new IllegalArgumentException("not a screen key: " + key);
    }
    int index = 0;
    int end = parts.length;
    if (parts[end - 1].matches("\\d+")) {
      index = Integer.parseInt(parts[end - 1]);
      end--;
    }
    String name = "cetp_" + String.join("_", java.util.Arrays.copyOfRange(parts, 1, end));
    if (name.equals("cetp_app")) {
      name = "cetp_app_label";
    }
    Activity activity = activity();
    int id = activity.getResources().getIdentifier(name, "id", activity.getPackageName());
    if (id == 0) {
      throw new IllegalArgumentException("the template's resources have no view id " + name);
    }
    List<View> shown = new ArrayList<>();
    collectShown(activity.getWindow().getDecorView(), id, shown);
    return index < shown.size() ? shown.get(index) : null;
  }

  private static void collectShown(View view, int id, List<View> into) {
    if (view.getVisibility() != View.VISIBLE) {
      return;
    }
    if (view.getId() == id) {
      into.add(view);
    }
    if (view instanceof ViewGroup) {
      ViewGroup group = (ViewGroup) view;
      for (int i = 0; i < group.getChildCount(); i++) {
        collectShown(group.getChildAt(i), id, into);
      }
    }
  }

  /**
   * Taps the view named {@code key} (a button, or a radio button to select it), waits for what
   * the tap started ({@link #settle()}) and lets the Allow delay of a new request pass.
   */
  public ConsentScreens tap(String key) {
    tapWithoutSettling(key);
    settle();
    waitForAllow();
    return this;
  }

  /**
   * Taps the view named {@code key} and runs only what the tap itself posts to the main looper:
   * admin work it started is still under way (a decision being saved).
   */
  public ConsentScreens tapWithoutSettling(String key) {
    View view = find(key);
    if (view == null) {
      throw new AssertionError("no view " + key + " on screen:\n" + text());
    }
    if (!view.isEnabled() || !view.isClickable()) {
      throw new AssertionError(key + " cannot be tapped");
    }
    view.performClick();
    shadowOf(Looper.getMainLooper()).idle();
    return this;
  }

  /**
   * Touches the view named {@code key} as a finger would (down, then up, at its centre), the
   * events carrying {@code flags} ({@code MotionEvent.FLAG_WINDOW_IS_OBSCURED} or {@code
   * FLAG_WINDOW_IS_PARTIALLY_OBSCURED} for a touch through another app's window; 0 for a plain
   * touch). Returns whether the view took the touch. The looper runs the click it posts.
   */
  public boolean touch(String key, int flags) {
    View view = find(key);
    if (view == null) {
      throw new AssertionError("no view " + key + " on screen:\n" + text());
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
    settle();
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

  /** The Intent the screen started last (e.g. Apps with access), or null. */
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
      String request = new JSONObject().put(Wire.ADMIN_OP, Wire.ADMIN_OP_STATE).toString();
      return new JSONObject((String) admin.invoke(null, request))
          .getJSONObject(Wire.ADMIN_KEY_STATE);
    } catch (ClassNotFoundException
        | NoSuchMethodException
        | IllegalAccessException
        | InvocationTargetException
        | JSONException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The driver under a consent dialog the kit's API opened ({@code agent.openConsentDialog}, a v2
   * {@code openResolution}), for the SDK's own tests of the dialog's views: keys, touches with
   * flags, recreation, the looper's clock. The dialog stays the kit's to close.
   */
  public static ConsentScreens of(ConsentDialog dialog) {
    return under(dialog);
  }

  /** The driver under Apps with access as the kit's API opened it ({@link #of(ConsentDialog)}). */
  public static ConsentScreens of(AppsWithAccess apps) {
    return under(apps);
  }

  /** Their package-private {@code screen()}: no public signature of the kit names this class. */
  private static ConsentScreens under(Object opened) {
    try {
      Method screen = opened.getClass().getDeclaredMethod("screen");
      screen.setAccessible(true);
      return (ConsentScreens) screen.invoke(opened);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot reach the driver of " + opened, e);
    }
  }
}
