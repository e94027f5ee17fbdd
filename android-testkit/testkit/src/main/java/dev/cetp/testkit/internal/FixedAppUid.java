package dev.cetp.testkit.internal;

import org.robolectric.pluginapi.TestEnvironmentLifecyclePlugin;
import org.robolectric.shadows.ShadowProcess;

/**
 * Runs the app under test as {@link #APP_UID} in every Robolectric test on this classpath
 * (registered in {@code META-INF/services}; Robolectric calls it before it installs the app's
 * package for a test).
 *
 * <p>Robolectric otherwise gives the process a UID picked at random, once per JVM, anywhere in
 * 10000..19999, and installs the app's package under it. A calling app a test installs under the
 * same number then shares a UID with the app itself: its identity lists the app's package beside
 * its own, on one machine in a few hundred and never when the test is run again. Pinned outside
 * the UIDs tests give calling apps, that cannot happen.
 */
public final class FixedAppUid implements TestEnvironmentLifecyclePlugin {
  /**
   * The app's own UID under the kit: below {@code CetpTestRule.FIRST_AGENT_UID} and every UID the
   * kit's own suites give a calling app.
   */
  public static final int APP_UID = 10_099;

  @Override
  public void onSetupApplicationState() {
    ShadowProcess.setUid(APP_UID);
  }
}
