package dev.cetp;

import android.content.ComponentName;
import android.content.ContentProvider;
import android.content.ContentValues;
import android.content.Context;
import android.content.pm.PackageManager;
import android.content.pm.ProviderInfo;
import android.database.Cursor;
import android.net.Uri;
import android.os.Binder;
import android.os.Bundle;
import android.util.Log;

/**
 * The CETP v1 Tool Provider: answers {@code ContentResolver.call} through the app's Rust library.
 *
 * <p>{@link #onCreate} loads the library named by the provider's meta-data {@value #META_LIBRARY}
 * and lets it build its provider with the app's files directory, package name and version.
 * {@link #call} reads the caller's UID on the Binder thread, resolves its packages and
 * signing-certificate digests ({@link CallerIdentity}, cached per UID), reads the three CETP
 * string extras and hands everything to Rust in one JNI call. Whatever goes wrong, the consumer
 * gets a well-formed CETP error Bundle, never an exception or null.
 *
 * <p>The provider is read-only: {@code query}, {@code insert}, {@code update}, {@code delete}
 * and {@code getType} do nothing.
 */
public class CetpToolProvider extends ContentProvider {
  /** Provider meta-data naming the Rust library ({@code notes} for {@code libnotes.so}). */
  public static final String META_LIBRARY = "dev.cetp.library";

  static final String TAG = "cetp";

  private ProviderInfo providerInfo;

  /**
   * Why the native library is not usable (the consumer gets INTERNAL_ERROR), or null once it is
   * loaded. Written in onCreate (main thread) before any call can arrive; read on Binder threads.
   */
  private volatile String unavailable = "onCreate has not run";

  /**
   * The replies to {@code list_tools} and {@code get_provider_info} as key/value pairs, fetched
   * once after init when they are the same for every caller (discovery open); null: each call
   * asks the library. Written in onCreate before any call can arrive.
   */
  private volatile String[] listToolsReply;

  private volatile String[] providerInfoReply;

  @Override
  public void attachInfo(Context context, ProviderInfo info) {
    providerInfo = info;
    super.attachInfo(context, info);
  }

  @Override
  public boolean onCreate() {
    try {
      unavailable = start();
    } catch (RuntimeException | LinkageError e) {
      Log.e(TAG, "CETP provider failed to start", e);
      unavailable = "it failed to start (details in logcat, tag " + TAG + ")";
    }
    if (unavailable != null) {
      Log.e(TAG, "CETP provider unavailable: " + unavailable);
    }
    // Stay installed either way: every call then answers INTERNAL_ERROR instead of failing.
    return true;
  }

  /** Loads and initializes the library; returns why the bridge is unusable, or null. */
  private String start() {
    Context context = getContext();
    String library = libraryName(context);
    if (library == null || library.isEmpty()) {
      return "the <provider> has no <meta-data android:name=\""
          + META_LIBRARY
          + "\" android:value=\"<rust library name>\"/> (set the cetpLibrary manifest placeholder)";
    }
    String loadError = NativeBridge.load(library);
    if (loadError != null) {
      return loadError;
    }
    String initError = NativeBridge.initApp(context, packageName(context));
    if (initError != null) {
      // The library answers every call with INTERNAL_ERROR and this reason; nothing to do here.
      Log.e(TAG, "CETP provider did not start: " + initError);
    } else {
      listToolsReply = constantReply(Wire.METHOD_LIST_TOOLS);
      providerInfoReply = constantReply(Wire.METHOD_GET_PROVIDER_INFO);
    }
    logPermissionMode(context);
    // Listen for package changes before the first call is answered (see CallerIdentityCache).
    CallerIdentityCache.start(context);
    return null;
  }

  /**
   * The reply to {@code method} as key/value pairs if Rust says it is the same for every caller
   * (discovery open), else null. A library without that native (built with an older SDK) is
   * simply asked on every call.
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

  /**
   * The package this provider is declared in, which names the approval action ({@code
   * <package>.CETP_AUTHORIZE}): from the ProviderInfo the platform attached (the installed app's
   * package; under Robolectric the context's package is the test application's), else the
   * context's.
   */
  private String packageName(Context context) {
    if (providerInfo != null && providerInfo.packageName != null) {
      return providerInfo.packageName;
    }
    return context.getPackageName();
  }

  @SuppressWarnings("deprecation") // getProviderInfo(ComponentName, int): API 33 added a flags class
  private String libraryName(Context context) {
    if (providerInfo != null && providerInfo.metaData != null) {
      String fromInfo = providerInfo.metaData.getString(META_LIBRARY);
      if (fromInfo != null) {
        return fromInfo;
      }
    }
    try {
      ProviderInfo info =
          context
              .getPackageManager()
              .getProviderInfo(
                  new ComponentName(context, getClass()), PackageManager.GET_META_DATA);
      return info.metaData == null ? null : info.metaData.getString(META_LIBRARY);
    } catch (PackageManager.NameNotFoundException e) {
      return null;
    }
  }

  /**
   * Logs which permission mode the manifest chose (see the README, "The ACCESS_TOOLS
   * permission"). When the provider requires {@code com.clawseed.permission.ACCESS_TOOLS}, which
   * the template does not declare, warns if no installed app declares it: no consumer can hold it
   * then, and the platform refuses them all.
   */
  private void logPermissionMode(Context context) {
    String required = getReadPermission();
    if (required == null || required.isEmpty()) {
      Log.i(TAG, "CETP provider: no permission required; every caller goes through the SDK's authorization");
      return;
    }
    Log.i(TAG, "CETP provider: callers need " + required + " (cetp.requireAccessToolsPermission)");
    try {
      context.getPackageManager().getPermissionInfo(Wire.ACCESS_PERMISSION, 0);
    } catch (PackageManager.NameNotFoundException e) {
      Log.w(
          TAG,
          "No installed app defines "
              + Wire.ACCESS_PERMISSION
              + ": consumers cannot reach this provider until one does (normally the consumer"
              + " app defines it).");
    } catch (RuntimeException e) {
      // Diagnostics only.
    }
  }

  @Override
  public Bundle call(String method, String arg, Bundle extras) {
    // Only meaningful here, on the Binder thread serving the call.
    int uid = Binder.getCallingUid();
    try {
      String reason = unavailable;
      if (reason != null) {
        return providerBug("the tool provider in this app is unavailable: " + reason);
      }
      // Open discovery answers every caller alike: the kept reply, no caller lookup, no JNI.
      String[] kept =
          Wire.METHOD_LIST_TOOLS.equals(method)
              ? listToolsReply
              : Wire.METHOD_GET_PROVIDER_INFO.equals(method) ? providerInfoReply : null;
      if (kept != null) {
        return bundle(kept);
      }
      String toolName = null;
      String args = null;
      String requestId = null;
      if (extras != null) {
        try {
          toolName = extras.getString(Wire.EXTRA_TOOL_NAME);
          args = extras.getString(Wire.EXTRA_ARGS);
          requestId = extras.getString(Wire.EXTRA_REQUEST_ID);
        } catch (RuntimeException e) {
          // A Bundle that cannot be unparcelled (unknown Parcelable classes, bad data): treat
          // the CETP keys as absent, which CETP answers with INVALID_ARGS where they matter.
          Log.w(TAG, "CETP call extras could not be read: " + e);
        }
      }
      CallerIdentity caller = CallerIdentity.resolve(getContext(), uid);
      String[] pairs =
          NativeBridge.call(
              method,
              toolName,
              args,
              requestId,
              caller.uid,
              caller.packages,
              caller.certificateDigests);
      if (pairs == null || pairs.length % 2 != 0) {
        return providerBug(
            "the tool provider failed unexpectedly inside the app (native bridge error, see"
                + " logcat tag "
                + TAG
                + ")");
      }
      return bundle(pairs);
    } catch (RuntimeException | LinkageError e) {
      Log.e(TAG, "CETP call `" + method + "` failed in the Java bridge", e);
      return providerBug("the tool provider failed unexpectedly inside the app");
    }
  }

  /** A new reply Bundle holding {@code pairs} ({@code key, value, key, value, ...}). */
  private static Bundle bundle(String[] pairs) {
    Bundle reply = new Bundle();
    for (int i = 0; i < pairs.length; i += 2) {
      reply.putString(pairs[i], pairs[i + 1]);
    }
    return reply;
  }

  /**
   * The INTERNAL_ERROR reply for a failure that is the provider app's fault: what happened, and
   * that the consumer's call was fine.
   */
  private static Bundle providerBug(String what) {
    return internalError(what + "; this is a bug in the provider app, not in your call");
  }

  private static Bundle internalError(String message) {
    Bundle reply = new Bundle();
    reply.putString(Wire.KEY_STATUS, Wire.STATUS_ERROR);
    reply.putString(Wire.KEY_ERROR_CODE, Wire.CODE_INTERNAL_ERROR);
    reply.putString(Wire.KEY_ERROR_MESSAGE, message);
    return reply;
  }

  // Read-only: CETP uses call() only.

  @Override
  public Cursor query(
      Uri uri, String[] projection, String selection, String[] selectionArgs, String sortOrder) {
    return null;
  }

  @Override
  public String getType(Uri uri) {
    return null;
  }

  @Override
  public Uri insert(Uri uri, ContentValues values) {
    return null;
  }

  @Override
  public int delete(Uri uri, String selection, String[] selectionArgs) {
    return 0;
  }

  @Override
  public int update(Uri uri, ContentValues values, String selection, String[] selectionArgs) {
    return 0;
  }
}
