package dev.cetp.testkit.internal;

import static org.robolectric.Shadows.shadowOf;

import android.content.Context;
import android.content.Intent;
import android.content.pm.ApplicationInfo;
import android.content.pm.PackageInfo;
import android.content.pm.PackageManager;
import android.content.pm.Signature;
import android.content.pm.SigningInfo;
import android.net.Uri;
import android.os.Binder;
import android.os.Looper;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.shadows.ShadowBinder;

/**
 * Simulated calling apps: installs a package under a UID with signing certificates, and sets the
 * UID that {@code Binder.getCallingUid()} reports inside a provider.
 *
 * <p>Installing and removing packages also sends the broadcasts the framework sends
 * ({@code ACTION_PACKAGE_ADDED}, {@code REPLACED}, {@code REMOVED}, {@code FULLY_REMOVED}, {@code
 * ACTION_UID_REMOVED}, each with {@code EXTRA_UID}) and runs the main looper until they are
 * delivered, so a provider that caches caller identities sees each change as it would on a device.
 *
 * <p>Robolectric keeps the calling UID in one static (ShadowBinder), shared by all threads, and
 * resets it after every test. Set it before starting concurrent callers; it cannot differ per
 * thread.
 */
public final class Callers {
  private Callers() {}

  /**
   * Installs {@code packageName} under {@code uid}, signed by {@code certificates} (raw certificate
   * bytes as {@link Signature#toByteArray()} returns them; any bytes are accepted since no key is
   * parsed), and adds it to the packages of {@code uid} (several packages may share a UID).
   */
  public static PackageInfo install(
      PackageManager pm, int uid, String packageName, byte[]... certificates) {
    return installLabelled(pm, uid, packageName, null, certificates);
  }

  /**
   * {@link #install}, with the application label {@code PackageManager.getApplicationLabel}
   * reports ({@code null}: none, so the label is the package name).
   */
  public static PackageInfo installLabelled(
      PackageManager pm, int uid, String packageName, String label, byte[]... certificates) {
    boolean replacing = isInstalled(pm, packageName);
    PackageInfo pi = installQuietly(pm, uid, packageName, label, certificates);
    if (replacing) {
      // An update: the framework announces the old version's removal, then the new one.
      broadcast(packageIntent(Intent.ACTION_PACKAGE_REMOVED, packageName, uid, true));
      broadcast(packageIntent(Intent.ACTION_PACKAGE_ADDED, packageName, uid, true));
      broadcast(packageIntent(Intent.ACTION_PACKAGE_REPLACED, packageName, uid, true));
    } else {
      broadcast(packageIntent(Intent.ACTION_PACKAGE_ADDED, packageName, uid, false));
    }
    return pi;
  }

  /**
   * {@link #installLabelled} without the broadcasts: the PackageManager changes, but the app hears
   * nothing yet, as when Android 14+ queues broadcasts for a cached app. The change is recorded
   * for {@code PackageManager.getChangedPackages}, as the platform records every install.
   */
  public static PackageInfo installQuietly(
      PackageManager pm, int uid, String packageName, String label, byte[]... certificates) {
    Signature[] signatures = new Signature[certificates.length];
    for (int i = 0; i < certificates.length; i++) {
      signatures[i] = new Signature(certificates[i]);
    }
    PackageInfo pi = new PackageInfo();
    pi.packageName = packageName;
    pi.setLongVersionCode(1);
    ApplicationInfo ai = new ApplicationInfo();
    ai.packageName = packageName;
    ai.uid = uid;
    ai.nonLocalizedLabel = label;
    ai.enabled = true;
    ai.flags = ApplicationInfo.FLAG_INSTALLED | ApplicationInfo.FLAG_HAS_CODE;
    ai.targetSdkVersion = 34;
    pi.applicationInfo = ai;
    pi.signatures = signatures; // GET_SIGNATURES (deprecated) view
    // Robolectric shadows SigningInfo (ShadowSigningInfo keeps its own signer list, which
    // getApkContentsSigners() returns and the shadow PackageManager copies).
    SigningInfo signingInfo = new SigningInfo();
    shadowOf(signingInfo).setSignatures(signatures);
    pi.signingInfo = signingInfo; // GET_SIGNING_CERTIFICATES view
    shadowOf(pm).installPackage(pi);
    recordChange(pm, packageName);

    Set<String> packages = new LinkedHashSet<>();
    String[] existing = pm.getPackagesForUid(uid);
    if (existing != null) {
      for (String p : existing) {
        packages.add(p);
      }
    }
    packages.add(packageName);
    shadowOf(pm).setPackagesForUid(uid, packages.toArray(new String[0]));
    return pi;
  }

  /** The device's package-change sequence number, and the test application it belongs to. */
  private static int changeSequence;

  private static Object changeSequenceOf;

  /**
   * Records a change for {@code PackageManager.getChangedPackages}. Robolectric answers a query
   * for sequence number {@code n} with the packages recorded under {@code n} and the number
   * {@code n + 1}, so each change is recorded under the number an app that saw every earlier
   * change would ask with.
   */
  private static synchronized void recordChange(PackageManager pm, String packageName) {
    Object app = RuntimeEnvironment.getApplication();
    if (changeSequenceOf != app) {
      changeSequenceOf = app;
      changeSequence = 0;
    }
    shadowOf(pm).addChangedPackage(changeSequence++, packageName);
  }

  /**
   * Uninstalls {@code packageName} from {@code uid}, with the broadcasts of an uninstall ({@code
   * ACTION_UID_REMOVED} too when it was the UID's last package).
   */
  public static void uninstall(PackageManager pm, int uid, String packageName) {
    shadowOf(pm).removePackage(packageName);
    recordChange(pm, packageName);
    List<String> remaining = new java.util.ArrayList<>();
    String[] existing = pm.getPackagesForUid(uid);
    if (existing != null) {
      for (String p : existing) {
        if (!p.equals(packageName)) {
          remaining.add(p);
        }
      }
    }
    shadowOf(pm).setPackagesForUid(uid, remaining.toArray(new String[0]));
    Intent removed = packageIntent(Intent.ACTION_PACKAGE_REMOVED, packageName, uid, false);
    removed.putExtra(Intent.EXTRA_DATA_REMOVED, true);
    broadcast(removed);
    broadcast(packageIntent(Intent.ACTION_PACKAGE_FULLY_REMOVED, packageName, uid, false));
    if (remaining.isEmpty()) {
      broadcast(new Intent(Intent.ACTION_UID_REMOVED).putExtra(Intent.EXTRA_UID, uid));
    }
  }

  private static boolean isInstalled(PackageManager pm, String packageName) {
    try {
      pm.getPackageInfo(packageName, 0);
      return true;
    } catch (PackageManager.NameNotFoundException e) {
      return false;
    }
  }

  private static Intent packageIntent(String action, String packageName, int uid, boolean replacing) {
    Intent intent = new Intent(action, Uri.fromParts("package", packageName, null));
    intent.putExtra(Intent.EXTRA_UID, uid);
    if (replacing) {
      intent.putExtra(Intent.EXTRA_REPLACING, true);
    }
    return intent;
  }

  /** Sends {@code intent} as the system would and delivers it to registered receivers. */
  public static void broadcast(Intent intent) {
    Context context = RuntimeEnvironment.getApplication();
    context.sendBroadcast(intent);
    shadowOf(Looper.getMainLooper()).idle();
  }

  /** From now on (until changed or the test ends) calls arrive from {@code uid}. */
  public static void setCallingUid(int uid) {
    ShadowBinder.setCallingUid(uid);
  }

  /** Runs {@code body} with calls arriving from {@code uid}, then restores the previous UID. */
  public static <T> T as(int uid, Callable<T> body) throws Exception {
    int previous = Binder.getCallingUid();
    ShadowBinder.setCallingUid(uid);
    try {
      return body.call();
    } finally {
      ShadowBinder.setCallingUid(previous);
    }
  }

  /** Lower-case hex SHA-256, the usual way to pin a signing certificate. */
  public static String sha256Hex(byte[] bytes) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(bytes);
      StringBuilder sb = new StringBuilder(64);
      for (byte b : d) {
        sb.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
      }
      return sb.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
