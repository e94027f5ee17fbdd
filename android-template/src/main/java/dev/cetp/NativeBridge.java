package dev.cetp;

import android.content.Context;
import android.content.pm.PackageInfo;
import android.content.pm.PackageManager;
import android.os.Build;
import android.util.Log;
import java.io.File;

/**
 * The natives of the app's Rust library, registered by its {@code JNI_OnLoad}
 * ({@code cetp_provider::export_provider!}). One CETP library per process.
 *
 * <p>R8/ProGuard must keep this class and its native methods under their names (the module's
 * {@code consumer-rules.pro} does).
 */
final class NativeBridge {
  private NativeBridge() {}

  private static String loaded;

  /**
   * Loads the Rust library {@code lib<library>.so} (once per process).
   *
   * @return null when it is loaded, otherwise why not.
   */
  static synchronized String load(String library) {
    if (library.equals(loaded)) {
      return null;
    }
    try {
      System.loadLibrary(library);
    } catch (UnsatisfiedLinkError | SecurityException e) {
      // The details (paths, linker messages) go to logcat, not to the consumer.
      Log.e(CetpToolProvider.TAG, "CETP: System.loadLibrary(\"" + library + "\") failed", e);
      return "its native library lib"
          + library
          + ".so could not be loaded (details in logcat, tag "
          + CetpToolProvider.TAG
          + ")";
    }
    if (loaded != null) {
      // The second library's JNI_OnLoad re-registered the natives: only one can serve.
      return "a second CETP native library (lib"
          + library
          + ".so, after lib"
          + loaded
          + ".so) was loaded into the process; an app exposes one CETP library";
    }
    loaded = library;
    return null;
  }

  /**
   * Builds the Rust provider for the app (the library's build function receives these values);
   * call once the library is loaded.
   *
   * @param versionCode {@code PackageInfo.getLongVersionCode()} of the app
   * @param versionName {@code PackageInfo.versionName}, or null
   * @return null when the provider started, otherwise why not (calls then answer
   *     INTERNAL_ERROR with that reason).
   */
  static native String init(
      String filesDir, String packageName, long versionCode, String versionName);

  /**
   * {@link #init} for the app {@code packageName} running in {@code context}: its files directory
   * and its installed version. Every host of the template starts the library through here.
   *
   * @return null when the provider started, otherwise why not.
   */
  static String initApp(Context context, String packageName) {
    File filesDir = context.getFilesDir();
    PackageInfo version = installedVersion(context, packageName);
    return init(
        filesDir == null ? "" : filesDir.getAbsolutePath(),
        packageName,
        version == null ? 0 : longVersionCode(version),
        version == null ? null : version.versionName);
  }

  @SuppressWarnings("deprecation") // getPackageInfo(String, int): API 33 added a flags class
  private static PackageInfo installedVersion(Context context, String packageName) {
    try {
      return context.getPackageManager().getPackageInfo(packageName, 0);
    } catch (PackageManager.NameNotFoundException | RuntimeException e) {
      return null;
    }
  }

  @SuppressWarnings("deprecation") // PackageInfo.versionCode before API 28
  private static long longVersionCode(PackageInfo info) {
    return Build.VERSION.SDK_INT >= Build.VERSION_CODES.P
        ? info.getLongVersionCode()
        : info.versionCode;
  }

  /**
   * Answers one {@code ContentResolver.call} in a single JNI crossing.
   *
   * @param toolName the {@code tool_name} extra, or null
   * @param args the {@code args} extra, or null
   * @param requestId the {@code request_id} extra, or null
   * @param callingUid {@code Binder.getCallingUid()}, or -1 when unknown
   * @param packages the packages under the UID ({@link CallerIdentity#packages})
   * @param certificateDigests per package, the hex SHA-256 digests of its signing certificates
   *     ({@link CallerIdentity#certificateDigests})
   * @return the reply as {@code key, value, key, value, ...}, or null if the bridge failed
   */
  static native String[] call(
      String method,
      String toolName,
      String args,
      String requestId,
      int callingUid,
      String[] packages,
      String[][] certificateDigests);

  /**
   * The approval screen's JSON interface ({@code Provider::handle_admin_json}): list pending
   * requests, approve, deny, revoke. Only for the provider app's own UI (this class is
   * package-private); never expose it to other apps.
   *
   * @return the JSON reply; {@code {"ok":false,"error":{"kind":"not_running",...}}} when the
   *     provider did not start, or null if the bridge failed
   */
  static native String admin(String requestJson);

  /**
   * The reply to {@code method} when it is the same for every caller: {@code list_tools} and
   * {@code get_provider_info} while the provider does not gate discovery. The template keeps it
   * and answers those calls without resolving the caller or calling into the library again.
   *
   * @return the reply as {@code key, value, key, value, ...}, or null when it may depend on the
   *     caller (or the provider is not running, or the bridge failed)
   */
  static native String[] constantReply(String method);
}
