package dev.cetp.testkit;

import android.app.Activity;
import android.content.Intent;
import dev.cetp.testkit.internal.ConsentScreens;
import dev.cetp.testkit.internal.Wire;
import java.util.List;

/**
 * Apps with access: every app the user allowed (with what and until when, and its recent use)
 * or declined, with Remove access and Let it ask again. Not exported: only the app itself opens
 * it ({@link CetpTestRule#openAppsWithAccess()}, or from the consent dialog).
 *
 * <pre>{@code
 * try (AppsWithAccess apps = cetp.openAppsWithAccess()) {
 *   assertTrue(apps.text(), apps.texts().contains("com.example.agent"));
 *   apps.removeAccess(0);
 * }
 * }</pre>
 */
public final class AppsWithAccess implements AutoCloseable {
  /** The action suffix of the screen's Intent ({@code <applicationId>.CETP_MANAGE_GRANTS}). */
  public static final String ACTION_SUFFIX = Wire.MANAGE_ACTION_SUFFIX;

  private final ConsentScreens screen;

  private AppsWithAccess(ConsentScreens screen) {
    this.screen = screen;
  }

  static AppsWithAccess open(String packageName) {
    Intent intent =
        new Intent(packageName + ACTION_SUFFIX).setClassName(packageName, ConsentScreens.GRANTS);
    return new AppsWithAccess(ConsentScreens.launchExplicit(intent));
  }

  static AppsWithAccess launch(Intent started, String packageName) {
    Intent intent = new Intent(started);
    if (intent.getComponent() == null && intent.getPackage() == null) {
      intent.setPackage(packageName);
    }
    return new AppsWithAccess(ConsentScreens.launchExplicit(intent));
  }

  /** @return every text on screen, top to bottom */
  public List<String> texts() {
    return screen.texts();
  }

  /** @return {@link #texts()}, one per line */
  public String text() {
    return screen.text();
  }

  /** @return the screen as rows of text */
  public List<String> sketch() {
    return screen.sketch();
  }

  /**
   * Taps Remove access of the {@code index}-th allowed app, in screen order.
   *
   * @param index 0 for the first
   */
  public void removeAccess(int index) {
    screen.tap("cetp:revoke:" + index);
  }

  /**
   * Taps Let it ask again of the {@code index}-th declined app.
   *
   * @param index 0 for the first
   */
  public void letAskAgain(int index) {
    screen.tap("cetp:allow:again:" + index);
  }

  /** @return the running Activity */
  public Activity activity() {
    return screen.activity();
  }

  /** @return the lower-level driver */
  ConsentScreens screen() {
    return screen;
  }

  @Override
  public void close() {
    screen.close();
  }
}
