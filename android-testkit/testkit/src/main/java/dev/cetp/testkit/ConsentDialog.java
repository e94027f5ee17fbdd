package dev.cetp.testkit;

import android.app.Activity;
import android.app.PendingIntent;
import android.content.ComponentName;
import android.content.Intent;
import dev.cetp.testkit.internal.ConsentScreens;
import java.util.List;
import org.robolectric.Shadows;
import org.robolectric.shadows.ShadowPendingIntent;

/**
 * The consent dialog an agent opens with the {@code authorize_intent} of {@code AUTH_REQUIRED}
 * (CETP v1) or the {@code resolution} PendingIntent of a refused call (CETP v2, {@link
 * V2Session#openResolution}), run by Robolectric as the platform would start it for that agent:
 * read what it shows, choose a
 * duration and an access level, tap Allow or Don't allow, open Apps with access. Each tap waits
 * for the screen's background work (reading the provider's state, saving the decision) without
 * sleeping.
 *
 * <pre>{@code
 * try (ConsentDialog dialog = agent.openConsentDialog(refused)) {
 *   assertTrue(dialog.text(), dialog.question().startsWith("Allow"));
 *   dialog.allow(ConsentDialog.Duration.ONE_HOUR, Approval.Access.LIMITED);
 *   assertEquals(Activity.RESULT_OK, dialog.resultCode());
 * }
 * }</pre>
 */
public final class ConsentDialog implements AutoCloseable {
  /** How long an Allow lasts: the dialog's choices. */
  public enum Duration {
    /** One hour. */
    ONE_HOUR("hour"),
    /** One day. */
    ONE_DAY("day"),
    /** Thirty days. */
    THIRTY_DAYS("month"),
    /** Until the user removes the access. */
    UNTIL_REVOKED("forever");

    final String key;

    Duration(String key) {
      this.key = key;
    }
  }

  private final ConsentScreens screen;
  private final String packageName;

  private ConsentDialog(ConsentScreens screen, String packageName) {
    this.screen = screen;
    this.packageName = packageName;
  }

  static ConsentDialog open(Agent agent, String packageName, String action) {
    Intent intent = new Intent(action).setPackage(packageName);
    return new ConsentDialog(ConsentScreens.launchFrom(agent.packageName(), intent), packageName);
  }

  /**
   * The dialog a CETP v2 {@code resolution} opens, as ClawSeed's client opens it ({@code
   * startIntentSenderForResult}): the PendingIntent must be immutable, created by {@code
   * packageName}, for an Activity, with an explicit Intent naming a component of that app. A
   * PendingIntent runs as its creator, so its Intent is started as the app itself.
   */
  static ConsentDialog openResolution(String packageName, PendingIntent resolution) {
    ShadowPendingIntent shadow = Shadows.shadowOf(resolution);
    if (!packageName.equals(resolution.getCreatorPackage())) {
      throw new AssertionError(
          "the resolution was created by "
              + resolution.getCreatorPackage()
              + ", not "
              + packageName);
    }
    if (!shadow.isImmutable()) {
      throw new AssertionError("the resolution is mutable (FLAG_IMMUTABLE missing)");
    }
    if (!shadow.isActivity()) {
      throw new AssertionError("the resolution does not start an Activity");
    }
    Intent intent = shadow.getSavedIntent();
    ComponentName target = intent == null ? null : intent.getComponent();
    if (target == null || !packageName.equals(target.getPackageName())) {
      throw new AssertionError(
          "the resolution's Intent is not explicit for a component of "
              + packageName
              + ": "
              + intent);
    }
    return new ConsentDialog(ConsentScreens.launchExplicit(new Intent(intent)), packageName);
  }

  /** @return every text on screen, top to bottom */
  public List<String> texts() {
    return screen.texts();
  }

  /** @return {@link #texts()}, one per line */
  public String text() {
    return screen.text();
  }

  /** @return the question the dialog asks (its first text, also the window's title) */
  public String question() {
    List<String> texts = texts();
    if (texts.isEmpty()) {
      throw new AssertionError("the dialog shows nothing");
    }
    return texts.get(0);
  }

  /** @return the screen as rows of text: radio groups {@code (•) 1 day}, buttons {@code [Allow]} */
  public List<String> sketch() {
    return screen.sketch();
  }

  /** Taps Allow with the choices the dialog preselects. */
  public void allow() {
    screen.tap("cetp:allow");
  }

  /**
   * Chooses {@code duration} and {@code access}, then taps Allow.
   *
   * @param duration how long the access lasts
   * @param access full, or limited (only offered when the provider has limited answers)
   * @throws AssertionError when the dialog does not offer that choice
   */
  public void allow(Duration duration, Approval.Access access) {
    screen.tap("cetp:duration:" + duration.key);
    String key = access == Approval.Access.LIMITED ? "cetp:access:limited" : "cetp:access:full";
    if (screen.find(key) != null) {
      screen.tap(key);
    } else if (access == Approval.Access.LIMITED) {
      throw new AssertionError(
          "the dialog offers no limited access (the provider answers limited callers nothing"
              + " different):\n"
              + text());
    }
    screen.tap("cetp:allow");
  }

  /** Taps Don't allow. */
  public void deny() {
    screen.tap("cetp:deny");
  }

  /**
   * The user leaves the dialog without deciding (Back): it closes with {@code RESULT_CANCELED}
   * and nothing is recorded.
   */
  @SuppressWarnings("deprecation") // onBackPressed: what Back does when nothing intercepts it
  public void dismiss() {
    activity().onBackPressed();
    ConsentScreens.settle();
  }

  /**
   * Taps the dialog's way to Apps with access and opens what it started.
   *
   * @return Apps with access, closed when this dialog's test ends
   */
  public AppsWithAccess openAppsWithAccess() {
    screen.tap("cetp:manage");
    Intent next = screen.nextStartedActivity();
    if (next == null) {
      throw new AssertionError("the dialog started nothing");
    }
    return AppsWithAccess.launch(next, packageName);
  }

  /** @return the result it set for the agent ({@code RESULT_OK} after Allow) */
  public int resultCode() {
    return screen.resultCode();
  }

  /** @return whether it is closing (after a decision) */
  public boolean isFinishing() {
    return screen.isFinishing();
  }

  /** @return the running Activity */
  public Activity activity() {
    return screen.activity();
  }

  /** @return the lower-level driver: keys, touches with flags, recreation */
  ConsentScreens screen() {
    return screen;
  }

  @Override
  public void close() {
    screen.close();
  }

  /**
   * @return whether the dialog offers a choice between full and limited access (only when the
   *     provider answers limited callers differently)
   */
  public boolean offersLimitedAccess() {
    return screen.find("cetp:access:limited") != null;
  }

  /** Taps More options: the choices of how long and how much show ({@link #texts()} lists them). */
  public void moreOptions() {
    screen.tap("cetp:more");
  }

  /**
   * The dialog a PendingIntent of the app opens (a notification it posted, tapped): its Intent
   * started as the app that created it.
   */
  static ConsentDialog openPendingIntent(String packageName, PendingIntent pending) {
    if (!packageName.equals(pending.getCreatorPackage())) {
      throw new AssertionError(
          "the PendingIntent was created by "
              + pending.getCreatorPackage()
              + ", not "
              + packageName);
    }
    ShadowPendingIntent shadow = Shadows.shadowOf(pending);
    if (!shadow.isActivity()) {
      throw new AssertionError("the PendingIntent does not start an Activity");
    }
    return new ConsentDialog(
        ConsentScreens.launchExplicit(new Intent(shadow.getSavedIntent())), packageName);
  }
}
