package dev.cetp;

import android.app.Service;
import android.content.ComponentName;
import android.content.Intent;
import android.content.pm.PackageManager;
import android.content.pm.ResolveInfo;
import android.content.pm.ServiceInfo;
import android.os.Binder;
import android.os.IBinder;
import android.util.Log;
import com.apex.agent.plugin.api.IApexPlugin;
import java.io.File;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The Apex agent's plugin interface ({@code com.apex.agent.plugin.api.IApexPlugin}) over the
 * app's Rust provider: the same tools, schemas, validation, limits and user approval as the CETP
 * ContentProvider.
 *
 * <p>Apex finds the Service by the intent action {@value Wire#APEX_PLUGIN_ACTION}, binds it and
 * calls the five AIDL methods on a Binder thread. Each one reads {@link Binder#getCallingUid()}
 * there, resolves the caller exactly as the ContentProvider does ({@link CallerIdentity}) and
 * makes one JNI call ({@link ApexBridge#call}); authorization and everything else is decided in
 * Rust ({@code cetp_provider::apex}). Nothing is read from the binding Intent: any app may bind
 * with any extras.
 *
 * <p>When the provider refuses a host because the user has not approved it yet ({@code Error:
 * AUTH_REQUIRED: ...}), the Service posts a notification that opens the approval screen for that
 * host's request ({@link CetpApprovalNotification}), if the app may post notifications. Apex has
 * no other way to bring the user there.
 *
 * <p>The template declares the Service disabled; an app turns it on with the boolean resource
 * {@code cetp_serve_apex} (see the template README).
 */
public class ApexPluginService extends Service {
  /**
   * Why the native provider is not usable, or null once it is. Written in onCreate (main thread)
   * before the binder is handed out; read on Binder threads.
   */
  private volatile String unavailable = "onCreate has not run";

  private final IApexPlugin.Stub binder = new Plugin();

  /**
   * The package this Service is declared in, which names the approval action ({@code
   * <package>.CETP_AUTHORIZE}). Set in onCreate.
   */
  private volatile String appPackage;

  @Override
  public void onCreate() {
    super.onCreate();
    try {
      unavailable = start();
    } catch (RuntimeException | LinkageError e) {
      Log.e(CetpToolProvider.TAG, "CETP Apex plugin failed to start", e);
      unavailable = "it failed to start (details in logcat, tag " + CetpToolProvider.TAG + ")";
    }
    if (unavailable != null) {
      Log.e(CetpToolProvider.TAG, "CETP Apex plugin unavailable: " + unavailable);
    }
  }

  /**
   * Loads the library; builds the provider unless the app's CETP ContentProvider already did in
   * this process for this app. Returns why the plugin is unusable, or null.
   */
  private String start() {
    ServiceInfo self = ownInfo();
    appPackage = self != null && self.packageName != null ? self.packageName : getPackageName();
    String library =
        self == null || self.metaData == null
            ? null
            : self.metaData.getString(CetpToolProvider.META_LIBRARY);
    if (library == null || library.isEmpty()) {
      return "the Apex plugin <service> has no <meta-data android:name=\""
          + CetpToolProvider.META_LIBRARY
          + "\"> (set the cetpLibrary manifest placeholder)";
    }
    String loadError = NativeBridge.load(library);
    if (loadError != null) {
      return loadError;
    }
    File filesDir = getFilesDir();
    String dir = filesDir == null ? "" : filesDir.getAbsolutePath();
    if (!ApexBridge.runningFor(dir)) {
      String initError = NativeBridge.initApp(this, appPackage);
      if (initError != null) {
        // Every call then answers INTERNAL_ERROR with this reason, from Rust.
        Log.e(CetpToolProvider.TAG, "CETP provider did not start: " + initError);
      }
    }
    return null;
  }

  @Override
  public IBinder onBind(Intent intent) {
    // The Intent (action, extras, data) is deliberately not read.
    return binder;
  }

  /** The binder every host gets. Its methods run on Binder threads. */
  private final class Plugin extends IApexPlugin.Stub {
    @Override
    public String getMetadataJson() {
      return answer(ApexBridge.OP_METADATA, null, null);
    }

    @Override
    public String getToolsJson() {
      return answer(ApexBridge.OP_TOOLS, null, null);
    }

    @Override
    public String executeTool(String toolId, String argumentsJson) {
      String result = answer(ApexBridge.OP_EXECUTE, toolId, argumentsJson);
      if (result.startsWith(Wire.APEX_ERROR_PREFIX + Wire.CODE_AUTH_REQUIRED + ": ")) {
        CetpApprovalNotification.post(ApexPluginService.this, Binder.getCallingUid());
      }
      return result;
    }

    @Override
    public void onActivate() {
      answer(ApexBridge.OP_ACTIVATE, null, null);
    }

    @Override
    public void onDeactivate() {
      answer(ApexBridge.OP_DEACTIVATE, null, null);
    }
  }

  /**
   * One transaction: the caller's identity from the Binder thread, one JNI call. Never throws;
   * returns what the host gets (for the lifecycle methods, ignored).
   */
  private String answer(int op, String toolId, String argumentsJson) {
    int uid = Binder.getCallingUid();
    try {
      String reason = unavailable;
      if (reason == null) {
        CallerIdentity caller = CallerIdentity.resolve(this, uid);
        String reply =
            ApexBridge.call(
                op, toolId, argumentsJson, caller.uid, caller.packages, caller.certificateDigests);
        if (reply != null) {
          return reply;
        }
        reason = "its native bridge failed (see logcat tag " + CetpToolProvider.TAG + ")";
      }
      return unavailableAnswer(op, reason);
    } catch (RuntimeException | LinkageError e) {
      Log.e(CetpToolProvider.TAG, "CETP Apex call " + op + " failed in the Java bridge", e);
      return unavailableAnswer(op, "it failed unexpectedly inside the app");
    }
  }

  /** What a host gets when the native side cannot answer: valid JSON, or an error text. */
  private String unavailableAnswer(int op, String reason) {
    String message =
        "the tools of this app are unavailable: " + reason + "; this is a bug in the app";
    switch (op) {
      case ApexBridge.OP_METADATA:
        try {
          JSONObject meta = new JSONObject();
          String pkg = appPackage == null ? getPackageName() : appPackage;
          meta.put("id", pkg);
          meta.put("name", pkg);
          meta.put("version", 0);
          meta.put("versionName", "");
          meta.put("minHostVersion", 1);
          meta.put("description", message);
          return meta.toString();
        } catch (JSONException e) {
          return "{}";
        }
      case ApexBridge.OP_TOOLS:
        return "[]";
      case ApexBridge.OP_EXECUTE:
        return Wire.APEX_ERROR_PREFIX + Wire.CODE_INTERNAL_ERROR + ": " + message;
      default:
        return "";
    }
  }

  /**
   * This Service's manifest entry (with meta-data): by its component name, else (under
   * Robolectric the context's package is the test application's, not the app's) the one Service
   * of this class answering the plugin action.
   */
  @SuppressWarnings("deprecation") // getServiceInfo / queryIntentServices: API 33 flag classes
  private ServiceInfo ownInfo() {
    PackageManager pm = getPackageManager();
    try {
      return pm.getServiceInfo(new ComponentName(this, getClass()), PackageManager.GET_META_DATA);
    } catch (PackageManager.NameNotFoundException | RuntimeException e) {
      // Fall through to the lookup by action.
    }
    try {
      ServiceInfo found = null;
      for (ResolveInfo r :
          pm.queryIntentServices(new Intent(Wire.APEX_PLUGIN_ACTION), PackageManager.GET_META_DATA)) {
        if (r.serviceInfo != null && getClass().getName().equals(r.serviceInfo.name)) {
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
}
