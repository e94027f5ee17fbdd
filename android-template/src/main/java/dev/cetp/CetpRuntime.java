package dev.cetp;

import android.content.Context;
import android.content.Intent;
import android.content.pm.ComponentInfo;
import android.content.pm.PackageInfo;
import android.content.pm.PackageManager;
import android.content.pm.ResolveInfo;
import android.os.Build;
import android.os.Bundle;
import android.util.Log;
import java.io.File;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.json.JSONException;
import org.json.JSONObject;
import org.jspecify.annotations.NullUnmarked;

/**
 * The app's CETP native library, loaded and started once per process, on the first call that
 * needs it: the ContentProvider, the Apex plugin Service and the consent dialog all go through
 * here and never through each other.
 *
 * <p>Nothing happens at process start: a host's {@code onCreate} only {@linkplain #register
 * registers} what it already knows (its application context, its package and library name from
 * the component info the platform attached), which costs no I/O. The first call ({@link
 * #ensureStarted}, on a Binder thread or the screen's background executor) finds the library
 * name if no host gave it, loads the library ({@code JNI_OnLoad} registers the natives), starts
 * the Rust runtime with the app's directories and version (the build function runs and the
 * provider is built), keeps the replies that are the same for every caller, and starts the
 * caller-identity cache's receiver. Concurrent first calls wait for that one start.
 *
 * <p>When the library cannot be used (it failed to load, the provider failed to build, the
 * manifest names no library), every host answers with the reason, built in one place ({@link
 * #unavailableBundle}, {@link #unavailableApex}).
 */
@NullUnmarked
final class CetpRuntime {
  private CetpRuntime() {}

  /** The logcat tag of the SDK. */
  static final String TAG = "cetp";

  /** Component meta-data naming the Rust library ({@code notes} for {@code libnotes.so}). */
  public static final String META_LIBRARY = "dev.cetp.library";

  /** How the library is loaded: {@link System#loadLibrary}, or a test's counting wrapper. */
  interface Loader {
    void load(String library);
  }

  static volatile Loader loader = System::loadLibrary;

  /** How many times a library load was tried, and how many times the runtime was started. */
  static final AtomicInteger loads = new AtomicInteger();

  static final AtomicInteger starts = new AtomicInteger();

  private static final Object LOCK = new Object();

  /** What the hosts registered: the application context, the app's package, the library. */
  private static Context app;

  private static String appPackage;
  private static String library;

  /** The library loaded into the process, or null. */
  private static String loaded;

  /** The application the runtime was started for; null: not started. */
  private static volatile Context startedFor;

  /** Why the runtime cannot answer; null once it started. Read on every call. */
  private static volatile String unavailable = "it has not been started";

  /** The kept {@code list_tools} and {@code get_provider_info} replies, or null. */
  private static volatile String[] listToolsReply;

  private static volatile String[] providerInfoReply;

  /**
   * Records what a host knows, without any I/O: the application of {@code context}, and the
   * app's package and library name when the host's component info has them. A null library is
   * unknown (looked up on the first call); an empty one is a component that names none, which
   * the first call reports.
   */
  static void register(Context context, String packageName, String libraryName) {
    Context application = application(context);
    synchronized (LOCK) {
      if (app != application) {
        app = application;
        appPackage = null;
        library = null;
      }
      if (packageName != null) {
        appPackage = packageName;
      }
      if (libraryName != null) {
        library = libraryName;
      }
    }
  }

  /**
   * Starts the runtime for the app of {@code context} unless it runs already; returns null when
   * it runs, otherwise why it cannot answer. Safe from any thread; the first call does the work
   * (tens of milliseconds: keep it off the main thread), later ones read one volatile field.
   */
  static String ensureStarted(Context context) {
    Context application = application(context);
    if (application == startedFor) {
      return unavailable;
    }
    synchronized (LOCK) {
      if (app != application) {
        register(application, null, null);
      }
      if (application != startedFor) {
        start(application);
      }
      return unavailable;
    }
  }

  /** The application the runtime was started for, or null (for {@link CetpAppDatabase}). */
  static Context startedApplication() {
    return startedFor;
  }

  /** Whether the runtime started and answers; reads one volatile field, starts nothing. */
  static boolean isRunning() {
    return unavailable == null;
  }

  /** {@link #ensureStarted} for the application the hosts registered, if any. */
  static String ensureStarted() {
    Context registered;
    synchronized (LOCK) {
      registered = app;
    }
    return registered == null ? "no CETP component of this app was created" : ensureStarted(registered);
  }

  /** When {@link #init} had what it asks the platform for (the start-up log line's split). */
  private static long appInfoAt;

  private static void start(Context context) {
    starts.incrementAndGet();
    listToolsReply = null;
    providerInfoReply = null;
    String reason;
    long begin = System.nanoTime();
    long loadedAt = begin;
    long builtAt = begin;
    try {
      reason = load(context);
      loadedAt = System.nanoTime();
      appInfoAt = loadedAt;
      if (reason == null) {
        reason = init(context);
      }
      builtAt = System.nanoTime();
    } catch (RuntimeException | LinkageError e) {
      Log.e(TAG, "CETP provider failed to start", e);
      reason = "it failed to start (details in logcat, tag " + TAG + ")";
    }
    if (reason != null) {
      Log.e(TAG, "CETP provider unavailable: " + reason);
    } else {
      beginTokenEpoch();
      listToolsReply = constantReply(Wire.METHOD_LIST_TOOLS);
      providerInfoReply = constantReply(Wire.METHOD_GET_PROVIDER_INFO);
      // Listen for package changes before the first call is answered (see CallerIdentityCache).
      CallerIdentityCache.start(context);
      long end = System.nanoTime();
      // What the app pays once per process, on the first call: worth one line in logcat.
      Log.i(
          TAG,
          String.format(
              Locale.ROOT,
              "CETP provider started in %.2f ms (library %.2f ms, app info %.2f ms, build and store %.2f ms, the rest %.2f ms)",
              (end - begin) / 1e6,
              (loadedAt - begin) / 1e6,
              (appInfoAt - loadedAt) / 1e6,
              (builtAt - appInfoAt) / 1e6,
              (end - builtAt) / 1e6));
    }
    unavailable = reason;
    startedFor = context;
  }

  /** Loads the library (once per process); returns why not, or null. */
  private static String load(Context context) {
    String name = library;
    if (name == null) {
      ComponentInfo found = findComponent(context, packageName(context));
      if (found != null) {
        name = library = meta(found);
        appPackage = found.packageName;
      }
    }
    if (name == null || name.isEmpty()) {
      return "the app's CETP components have no <meta-data android:name=\""
          + META_LIBRARY
          + "\" android:value=\"<rust library name>\"/> (set the cetpLibrary manifest placeholder)";
    }
    if (name.equals(loaded)) {
      return null;
    }
    try {
      loads.incrementAndGet();
      loader.load(name);
    } catch (UnsatisfiedLinkError | SecurityException e) {
      // The details (paths, linker messages) go to logcat, not to the agent.
      Log.e(TAG, "CETP: System.loadLibrary(\"" + name + "\") failed", e);
      return "its native library lib"
          + name
          + ".so could not be loaded (details in logcat, tag "
          + TAG
          + ")";
    }
    if (loaded != null) {
      // The second library's JNI_OnLoad registered the natives again: only one can serve.
      return "a second CETP native library (lib"
          + name
          + ".so, after lib"
          + loaded
          + ".so) was loaded into the process; an app exposes one CETP library";
    }
    loaded = name;
    return null;
  }

  /** Starts the Rust runtime for the app; returns why it did not start, or null. */
  private static String init(Context context) {
    String dir = filesDir(context);
    String pkg = packageName(context);
    PackageInfo version = installedVersion(context, pkg);
    File noBackup = Build.VERSION.SDK_INT >= 21 ? context.getNoBackupFilesDir() : null;
    appInfoAt = System.nanoTime();
    String reason =
        NativeBridge.init(
            dir,
            noBackup == null ? "" : noBackup.getAbsolutePath(),
            pkg,
            version == null ? 0 : longVersionCode(version),
            version == null ? null : version.versionName);
    if (reason != null) {
      // The reason is what every call answers; Rust logged it too.
      return "it could not start: " + reason;
    }
    return null;
  }

  /**
   * Asks the library for a caller-token epoch of this copy of the template's classes alone
   * ({@link CallerIdentity#beginEpoch}), so that no other class loader's identities can share a
   * token with ours. Without one, identities are not kept by the library (slower, never wrong).
   */
  private static void beginTokenEpoch() {
    long next = 0;
    try {
      next = NativeBridge.tokenEpoch();
    } catch (LinkageError | RuntimeException e) {
      Log.w(TAG, "CETP: caller identities will be read on every call (no token epoch)");
    }
    CallerIdentity.beginEpoch(next);
  }

  /** The app's package: what a host registered, else the context's. */
  private static String packageName(Context context) {
    String pkg = appPackage;
    return pkg != null ? pkg : context.getPackageName();
  }

  /**
   * The app's CETP provider or plugin Service with the library name in its meta-data, read from
   * the PackageManager when no host registered one (the plugin Service or the consent dialog
   * was first). Looked up by component class in the app's package, else (under Robolectric the
   * context's package is the test application's, not the app's) as the one plugin Service of
   * this class answering the Apex action.
   */
  @SuppressWarnings("deprecation") // getPackageInfo / queryIntentServices: API 33 flag classes
  private static ComponentInfo findComponent(Context context, String pkg) {
    PackageManager pm = context.getPackageManager();
    try {
      PackageInfo info =
          pm.getPackageInfo(
              pkg,
              PackageManager.GET_PROVIDERS | PackageManager.GET_SERVICES | PackageManager.GET_META_DATA);
      ComponentInfo found = withLibrary(info.providers);
      if (found == null) {
        found = withLibrary(info.services);
      }
      if (found != null) {
        return found;
      }
    } catch (PackageManager.NameNotFoundException | RuntimeException e) {
      // Fall through to the lookup by action.
    }
    try {
      ComponentInfo found = null;
      Intent plugins = new Intent(Wire.APEX_PLUGIN_ACTION);
      for (ResolveInfo r : pm.queryIntentServices(plugins, PackageManager.GET_META_DATA)) {
        if (r.serviceInfo != null
            && ApexPluginService.class.getName().equals(r.serviceInfo.name)
            && meta(r.serviceInfo) != null) {
          if (found != null) {
            return null; // several apps: not ours to guess
          }
          found = r.serviceInfo;
        }
      }
      return found;
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static ComponentInfo withLibrary(ComponentInfo[] components) {
    if (components == null) {
      return null;
    }
    for (ComponentInfo component : components) {
      if (meta(component) != null
          && (CetpToolProvider.class.getName().equals(component.name)
              || ApexPluginService.class.getName().equals(component.name))) {
        return component;
      }
    }
    return null;
  }

  /** The app's package name, as the hosts registered it or the start resolved it. */
  static String appPackage(Context context) {
    synchronized (LOCK) {
      return packageName(context);
    }
  }

  /** The library named in {@code component}'s meta-data, or null when it names none. */
  static String meta(ComponentInfo component) {
    Bundle data = component == null ? null : component.metaData;
    String value = data == null ? null : data.getString(META_LIBRARY);
    return value == null || value.isEmpty() ? null : value;
  }

  /**
   * What a host's own component entry says about the library, for {@link #register}: null when
   * the platform attached no entry (look it up), {@code ""} when the entry names none.
   */
  static String declaredLibrary(ComponentInfo component) {
    if (component == null) {
      return null;
    }
    String value = meta(component);
    return value == null ? "" : value;
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
   * The reply to {@code method} as key/value pairs if Rust says it is the same for every caller
   * (discovery open), else null.
   */
  private static String[] constantReply(String method) {
    try {
      String[] pairs = NativeBridge.constantReply(method);
      return pairs != null && pairs.length % 2 == 0 ? pairs : null;
    } catch (LinkageError | RuntimeException e) {
      Log.w(TAG, "CETP: `" + method + "` will be asked of the library on every call", e);
      return null;
    }
  }

  /** The kept reply to {@code method} while the runtime runs, or null (ask the library). */
  static String[] keptReply(String method) {
    if (Wire.METHOD_LIST_TOOLS.equals(method)) {
      return listToolsReply;
    }
    return Wire.METHOD_GET_PROVIDER_INFO.equals(method) ? providerInfoReply : null;
  }

  /**
   * The consent dialog's admin JSON interface ({@code NativeBridge.admin}), starting the
   * runtime first if needed: the reply, or null when the runtime cannot answer. Does disk I/O:
   * never call it on the main thread.
   */
  static String admin(String requestJson) {
    if (ensureStarted() != null) {
      return null;
    }
    return NativeBridge.admin(requestJson);
  }

  private static Context application(Context context) {
    Context application = context.getApplicationContext();
    return application != null ? application : context;
  }

  private static String filesDir(Context context) {
    File dir = context.getFilesDir();
    return dir == null ? "" : dir.getAbsolutePath();
  }

  // ------------------------------------------------------------------------------------------
  // What a host answers when the library cannot: the one place these replies are made.

  /** What the agent reads when the library cannot answer: {@code reason} and whose fault. */
  private static String message(String reason) {
    return "the tool provider in this app is unavailable: "
        + reason
        + "; this is a bug in the provider app, not in your call";
  }

  /** A CETP {@code INTERNAL_ERROR} reply Bundle for {@code reason}. */
  static Bundle unavailableBundle(String reason) {
    Bundle reply = new Bundle();
    reply.putString(Wire.KEY_STATUS, Wire.STATUS_ERROR);
    reply.putString(Wire.KEY_ERROR_CODE, Wire.CODE_INTERNAL_ERROR);
    reply.putString(Wire.KEY_ERROR_MESSAGE, message(reason));
    return reply;
  }

  /** The {@code IApexPlugin} methods, for what each answers when the library cannot. */
  enum ApexMethod {
    METADATA,
    TOOLS,
    EXECUTE,
    LIFECYCLE
  }

  /**
   * What an Apex host gets when the library cannot answer: metadata a host accepts (and shows
   * the reason in), no tools, an error line for {@code executeTool}, nothing for the lifecycle.
   */
  static String unavailableApex(ApexMethod method, String pkg, String reason) {
    switch (method) {
      case METADATA:
        try {
          JSONObject meta = new JSONObject();
          meta.put(Wire.APEX_KEY_ID, pkg);
          meta.put(Wire.APEX_KEY_NAME, pkg);
          meta.put(Wire.APEX_KEY_VERSION, 0);
          meta.put(Wire.APEX_KEY_VERSION_NAME, "");
          meta.put(Wire.APEX_KEY_MIN_HOST_VERSION, 1);
          meta.put(Wire.APEX_KEY_DESCRIPTION, message(reason));
          return meta.toString();
        } catch (JSONException e) {
          return "{}";
        }
      case TOOLS:
        return "[]";
      case EXECUTE:
        return Wire.APEX_ERROR_PREFIX + Wire.CODE_INTERNAL_ERROR + ": " + message(reason);
      default:
        return "";
    }
  }

  /** Why a host got nothing back from a native (it logged the cause). */
  static final String BRIDGE_FAILED =
      "its native bridge failed unexpectedly (details in logcat, tag " + TAG + ")";
}
