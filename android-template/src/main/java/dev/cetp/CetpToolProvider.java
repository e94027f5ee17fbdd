package dev.cetp;

import android.content.ContentProvider;
import android.content.ContentValues;
import android.content.Context;
import android.content.pm.PackageManager;
import android.content.pm.ProviderInfo;
import android.database.Cursor;
import android.net.Uri;
import android.os.Binder;
import android.os.Bundle;
import android.os.ParcelFileDescriptor;
import android.util.Log;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The CETP Tool Provider: answers {@code ContentResolver.call} through the app's Rust library,
 * CETP v1 and, unless the app turned it off ({@code cetp.v2=false}), CETP v2.
 *
 * <p>{@link #onCreate} runs on the main thread at every start of the app's process, before
 * {@code Application.onCreate}, whether or not any agent ever calls: it only registers the
 * provider's package and library name with {@link CetpRuntime} and does nothing else (no
 * library load, no file, no PackageManager query). The first {@link #call} starts the runtime on
 * its Binder thread. Each call reads the caller's UID there, resolves its packages and
 * signing-certificate digests ({@link CallerIdentity}, cached per UID), reads the three CETP
 * string extras and hands everything to Rust in one JNI call; {@code list_tools} and {@code
 * get_provider_info} are answered from the kept reply while they are the same for every caller.
 * Whatever goes wrong, the agent gets a well-formed CETP error Bundle, never an exception or
 * null.
 *
 * <p>A call that names its protocol ({@code protocol_version}) or negotiates CETP v2 takes
 * another path: the extras v1 and v2 read, each by name and with its Bundle type, go to Rust as
 * typed text ({@link NativeBridge#callTyped}), Rust decides which protocol answers, and the reply
 * comes back typed the same way; the entries made here are the {@code resolution} PendingIntent
 * ({@link CetpScreens#resolution}), which only the app can create, and a large result's {@code
 * result_fd} ({@link CetpResultFiles}). This class reads no v2 field itself.
 *
 * <p>The provider is read-only: {@code query}, {@code insert}, {@code update}, {@code delete}
 * and {@code getType} do nothing.
 */
public class CetpToolProvider extends ContentProvider {
  /** What is logged, once, when a call's extras cannot be unparcelled: nothing of the caller's. */
  static final String UNREADABLE_EXTRAS =
      "CETP: a call's extras could not be read (unknown Parcelable or bad data); its CETP keys"
          + " are treated as absent (logged once)";

  /**
   * The extras a typed call passes on, read by name (cetp_provider::host::cetp_v2::extras::
   * TYPED_EXTRAS): however many other extras a call has, these are never left out.
   */
  private static final String[] TYPED_EXTRAS = {
    Wire.EXTRA_PROTOCOL_VERSION,
    Wire.EXTRA_SESSION_TOKEN,
    Wire.EXTRA_REQUEST_ID,
    Wire.EXTRA_DEADLINE_AT_MS,
    Wire.EXTRA_TOOL_NAME,
    Wire.EXTRA_ARGS,
    Wire.EXTRA_RESUME_TOKEN,
    Wire.EXTRA_CONSUMER_VERSIONS,
    Wire.EXTRA_CONSUMER_CAPABILITIES,
    Wire.EXTRA_OPERATION_ID,
  };

  private final AtomicBoolean modeLogged = new AtomicBoolean();
  private final AtomicBoolean unreadableLogged = new AtomicBoolean();
  /** Whether the manifest advertises CETP v2 ({@code cetp.v2}, on unless set to false). */
  private volatile boolean servesV2;

  @Override
  public void attachInfo(Context context, @Nullable ProviderInfo info) {
    super.attachInfo(context, info);
    servesV2 = advertisesV2(info);
    // The platform hands over the provider's manifest entry with its meta-data: no query.
    CetpRuntime.register(
        context, info == null ? null : info.packageName, CetpRuntime.declaredLibrary(info));
  }

  @Override
  public boolean onCreate() {
    // Nothing to do: the runtime starts on the first call (see the class comment).
    return true;
  }

  @Override
  public @Nullable Bundle call(String method, @Nullable String arg, @Nullable Bundle extras) {
    // Only meaningful here, on the Binder thread serving the call.
    int uid = Binder.getCallingUid();
    // This thread's previous reply was written before it could take this call.
    CetpResultFiles.closeLastReply();
    try {
      Context context = getContext();
      String reason = CetpRuntime.ensureStarted(context);
      if (reason != null) {
        return CetpRuntime.unavailableBundle(reason);
      }
      if (!modeLogged.getAndSet(true)) {
        logPermissionMode(context);
      }
      // A call that names its protocol (or negotiates CETP v2) goes to Rust with its extras
      // typed, and Rust answers it; every other call is CETP v1, as below.
      if (servesV2 && namesProtocol(method, extras)) {
        return typedCall(context, method, extras, uid);
      }
      // Open discovery answers every caller alike: the kept reply, no caller lookup, no JNI.
      String[] kept = CetpRuntime.keptReply(method);
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
          // The exception's message is the caller's text (a class name of its choosing), and
          // any app can send such calls as often as it likes: a fixed line, once per provider.
          unreadable();
        }
      }
      CallerIdentity caller = CallerIdentity.resolve(context, uid);
      String[] pairs =
          NativeBridge.call(
              method,
              toolName,
              args,
              requestId,
              caller.uid,
              caller.token,
              caller.packages,
              caller.certificateDigests);
      if (pairs == null || pairs.length % 2 != 0) {
        return CetpRuntime.unavailableBundle(CetpRuntime.BRIDGE_FAILED);
      }
      return bundle(pairs);
    } catch (RuntimeException | LinkageError e) {
      Log.e(CetpRuntime.TAG, "CETP call failed in the Java bridge", e);
      return CetpRuntime.unavailableBundle("it failed unexpectedly inside the app");
    }
  }

  /**
   * Logs which permission mode the manifest chose (see the README, "The ACCESS_TOOLS
   * permission"), once, on the first call. When the provider requires {@code
   * com.clawseed.permission.ACCESS_TOOLS}, which the template does not declare, warns if no
   * installed app declares it: no agent can hold it then, and the platform refuses them all.
   */
  private void logPermissionMode(Context context) {
    String required = getReadPermission();
    if (required == null || required.isEmpty()) {
      Log.i(
          CetpRuntime.TAG,
          "CETP provider: no permission required; every caller goes through the SDK's authorization");
      return;
    }
    Log.i(CetpRuntime.TAG, "CETP provider: callers need " + required + " (cetp.requireAccessToolsPermission)");
    try {
      context.getPackageManager().getPermissionInfo(Wire.ACCESS_PERMISSION, 0);
    } catch (PackageManager.NameNotFoundException e) {
      Log.w(
          CetpRuntime.TAG,
          "No installed app defines "
              + Wire.ACCESS_PERMISSION
              + ": agents cannot reach this provider until one does (normally the agent"
              + " app defines it).");
    } catch (RuntimeException e) {
      // Diagnostics only.
    }
  }

  /**
   * Whether the provider's meta-data lists CETP v2 ({@code "1,2"}, a string; {@code cetp.v2=false}
   * makes it the integer 1, read here without the type warning {@code getString} would log).
   */
  @SuppressWarnings("deprecation") // Bundle.get: the value may be an Integer
  private static boolean advertisesV2(ProviderInfo info) {
    return info != null
        && info.metaData != null
        && Wire.VERSIONS_DUAL_STACK.equals(info.metaData.get(Wire.META_VERSIONS));
  }

  /** Logs {@link #UNREADABLE_EXTRAS}, once per provider. */
  private void unreadable() {
    if (!unreadableLogged.getAndSet(true)) {
      Log.w(CetpRuntime.TAG, UNREADABLE_EXTRAS);
    }
  }

  private boolean namesProtocol(String method, Bundle extras) {
    if (Wire.METHOD_NEGOTIATE.equals(method)) {
      return true;
    }
    try {
      return extras != null && extras.containsKey(Wire.EXTRA_PROTOCOL_VERSION);
    } catch (RuntimeException e) {
      // Extras that cannot be unparcelled (the Bundle then reads as empty): v1's path treats
      // the CETP keys as absent.
      unreadable();
      return false;
    }
  }

  private Bundle typedCall(Context context, String method, Bundle extras, int uid) {
    String[] flat = flatten(extras);
    CallerIdentity caller = CallerIdentity.resolve(context, uid);
    String[] triples =
        NativeBridge.callTyped(
            method, flat, caller.uid, caller.token, caller.packages, caller.certificateDigests);
    if (triples == null || triples.length % 3 != 0) {
      return CetpRuntime.unavailableBundle(CetpRuntime.BRIDGE_FAILED);
    }
    Bundle reply = new Bundle();
    // A reply carries at most one large result (Rust names it once).
    ParcelFileDescriptor result = null;
    int i = 0;
    try {
      for (; i < triples.length; i += 3) {
        if (Wire.TAG_RESULT_FILE.equals(triples[i + 1])) {
          if (result != null) {
            CetpResultFiles.discard(triples[i + 2]);
            continue;
          }
          result = CetpResultFiles.open(triples[i + 2]);
          reply.putParcelable(triples[i], result);
        } else {
          put(context, reply, triples[i], triples[i + 1], triples[i + 2]);
        }
      }
    } catch (IOException | RuntimeException e) {
      // No reply is made: its descriptor is closed, and a file not yet opened is unlinked.
      CetpResultFiles.close(result);
      for (int j = i + 3; j < triples.length; j += 3) {
        if (Wire.TAG_RESULT_FILE.equals(triples[j + 1])) {
          CetpResultFiles.discard(triples[j + 2]);
        }
      }
      Log.e(
          CetpRuntime.TAG,
          "CETP v2: the reply could not be made (" + e.getClass().getSimpleName() + ")");
      return CetpRuntime.unavailableBundle("it could not make the reply");
    }
    if (result != null) {
      CetpResultFiles.handedOut(result);
    }
    return reply;
  }

  /**
   * Each of {@link #TYPED_EXTRAS} present with a plain type as {@code key, tag, value}; other
   * extras and other types are not passed on.
   */
  @SuppressWarnings("deprecation") // Bundle.get: the only way to read an extra of any type
  private String[] flatten(Bundle extras) {
    List<String> flat = new ArrayList<>();
    if (extras == null) {
      return new String[0];
    }
    try {
      for (String key : TYPED_EXTRAS) {
        Object value = extras.get(key);
        String tag;
        String text;
        if (value instanceof String) {
          tag = Wire.TAG_STRING;
          text = (String) value;
        } else if (value instanceof Integer) {
          tag = Wire.TAG_INT;
          text = value.toString();
        } else if (value instanceof Long) {
          tag = Wire.TAG_LONG;
          text = value.toString();
        } else if (value instanceof Boolean) {
          tag = Wire.TAG_BOOLEAN;
          text = value.toString();
        } else if (value instanceof int[]) {
          tag = Wire.TAG_INT_ARRAY;
          StringBuilder joined = new StringBuilder();
          for (int n : (int[]) value) {
            joined.append(joined.length() == 0 ? "" : ",").append(n);
          }
          text = joined.toString();
        } else {
          continue;
        }
        flat.add(key);
        flat.add(tag);
        flat.add(text);
      }
    } catch (RuntimeException e) {
      unreadable();
      flat.clear();
    }
    return flat.toArray(new String[0]);
  }

  /** Puts one reply entry with the type its tag names. */
  private static void put(Context context, Bundle reply, String key, String tag, String value) {
    switch (tag) {
      case Wire.TAG_INT:
        reply.putInt(key, Integer.parseInt(value));
        break;
      case Wire.TAG_LONG:
        reply.putLong(key, Long.parseLong(value));
        break;
      case Wire.TAG_BOOLEAN:
        reply.putBoolean(key, Boolean.parseBoolean(value));
        break;
      case Wire.TAG_RESOLUTION:
        reply.putParcelable(key, CetpScreens.resolution(context, Integer.parseInt(value)));
        break;
      default:
        reply.putString(key, value);
        break;
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

  // Read-only: CETP uses call() only.

  @Override
  public @Nullable Cursor query(
      Uri uri,
      String @Nullable [] projection,
      @Nullable String selection,
      String @Nullable [] selectionArgs,
      @Nullable String sortOrder) {
    return null;
  }

  @Override
  public @Nullable String getType(Uri uri) {
    return null;
  }

  @Override
  public @Nullable Uri insert(Uri uri, @Nullable ContentValues values) {
    return null;
  }

  @Override
  public int delete(Uri uri, @Nullable String selection, String @Nullable [] selectionArgs) {
    return 0;
  }

  @Override
  public int update(
      Uri uri,
      @Nullable ContentValues values,
      @Nullable String selection,
      String @Nullable [] selectionArgs) {
    return 0;
  }
}
