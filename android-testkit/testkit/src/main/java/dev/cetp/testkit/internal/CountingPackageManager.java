package dev.cetp.testkit.internal;

import android.content.pm.PackageInfo;
import android.content.pm.PackageManager;
import java.util.concurrent.atomic.AtomicLong;
import org.robolectric.annotation.Implementation;
import org.robolectric.annotation.Implements;
import org.robolectric.shadows.ShadowApplicationPackageManager;

/**
 * Robolectric's PackageManager shadow, counting the queries a provider makes to identify its
 * caller: {@code getPackagesForUid}, {@code getPackageInfo} (every overload) and {@code
 * getChangedPackages}. On a device
 * each of them is a Binder round trip to system_server.
 *
 * <p>Enable it with {@code @Config(shadows = CountingPackageManager.class)}; read and reset the
 * counts with {@link #queries()} and {@link #reset()}. The counters are static (one
 * PackageManager per Robolectric application) and thread-safe.
 */
@Implements(className = "android.app.ApplicationPackageManager", isInAndroidSdk = false)
public class CountingPackageManager extends ShadowApplicationPackageManager {
  private static final AtomicLong PACKAGES_FOR_UID = new AtomicLong();
  private static final AtomicLong PACKAGE_INFO = new AtomicLong();
  private static final AtomicLong CHANGED_PACKAGES = new AtomicLong();

  /**
   * {@code getPackagesForUid}, {@code getPackageInfo} and {@code getChangedPackages} calls since
   * the last {@link #reset}.
   */
  public static long queries() {
    return PACKAGES_FOR_UID.get() + PACKAGE_INFO.get() + CHANGED_PACKAGES.get();
  }

  /** {@code getChangedPackages} calls since the last {@link #reset}. */
  public static long changedPackages() {
    return CHANGED_PACKAGES.get();
  }

  /** {@code getPackagesForUid} calls since the last {@link #reset}. */
  public static long packagesForUid() {
    return PACKAGES_FOR_UID.get();
  }

  /** {@code getPackageInfo} calls since the last {@link #reset}. */
  public static long packageInfo() {
    return PACKAGE_INFO.get();
  }

  /** Sets every counter back to zero. */
  public static void reset() {
    PACKAGES_FOR_UID.set(0);
    PACKAGE_INFO.set(0);
    CHANGED_PACKAGES.set(0);
  }

  @Implementation
  @Override
  protected Object getChangedPackages(int sequenceNumber) {
    CHANGED_PACKAGES.incrementAndGet();
    return super.getChangedPackages(sequenceNumber);
  }

  @Implementation
  @Override
  protected String[] getPackagesForUid(int uid) {
    PACKAGES_FOR_UID.incrementAndGet();
    return super.getPackagesForUid(uid);
  }

  @Implementation
  @Override
  protected PackageInfo getPackageInfo(String packageName, int flags)
      throws PackageManager.NameNotFoundException {
    PACKAGE_INFO.incrementAndGet();
    return super.getPackageInfo(packageName, flags);
  }

  @Implementation
  @Override
  protected PackageInfo getPackageInfo(String packageName, Object flags)
      throws PackageManager.NameNotFoundException {
    PACKAGE_INFO.incrementAndGet();
    return super.getPackageInfo(packageName, flags);
  }
}
