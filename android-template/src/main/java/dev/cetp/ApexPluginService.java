package dev.cetp;

import android.app.Service;
import android.content.Intent;
import android.os.Binder;
import android.os.IBinder;
import android.util.Log;
import com.apex.agent.plugin.api.IApexPlugin;
import org.jspecify.annotations.Nullable;

/**
 * The Apex agent's plugin interface ({@code com.apex.agent.plugin.api.IApexPlugin}) over the
 * app's Rust provider: the same tools, schemas, validation, limits and user approval as the CETP
 * ContentProvider.
 *
 * <p>Apex finds the Service by the intent action {@value Wire#APEX_PLUGIN_ACTION}, binds it and
 * calls the five AIDL methods on a Binder thread. Each one reads {@link Binder#getCallingUid()}
 * there, starts the runtime if this is the first call ({@link CetpRuntime}; {@code onCreate}
 * does nothing that costs), resolves the caller exactly as the ContentProvider does ({@link
 * CallerIdentity}) and makes one JNI call, one native per method ({@link ApexBridge});
 * authorization and everything else is decided in Rust ({@code cetp_provider::host::apex}).
 * Nothing is read from the binding Intent: any app may bind with any extras.
 *
 * <p>When the provider refuses a host because the user has not approved it yet ({@code
 * AUTH_REQUIRED}, as the native reports it), the Service posts a notification that opens the
 * consent dialog for that host's request ({@link CetpApprovalNotification}), if the app may post
 * notifications. Apex has no other way to bring the user there.
 *
 * <p>The template declares the Service disabled; an app turns it on with the boolean resource
 * {@code cetp_serve_apex} (see the template README).
 */
public class ApexPluginService extends Service {
  private final IApexPlugin.Stub binder = new Plugin();

  @Override
  public void onCreate() {
    super.onCreate();
    // Only what is known without I/O: the library is looked up and loaded on the first call.
    CetpRuntime.register(this, null, null);
  }

  @Override
  public IBinder onBind(@Nullable Intent intent) {
    // The Intent (action, extras, data) is deliberately not read.
    return binder;
  }

  /**
   * Every host's binding is closed: each unbound, or its process died (the platform removes a
   * dead client's bindings). Android calls this only once the last binding of the intent is gone,
   * never per host, and names no host: the IApexPlugin calls pass the Service no binder of the
   * host's to watch. So the provider ends every host's open bindings here (their {@code
   * on_deactivate} hooks run) and their entries stop holding room.
   */
  @Override
  public boolean onUnbind(@Nullable Intent intent) {
    // Nothing is tracked before the library ran a call; never load it just for this.
    if (CetpRuntime.isRunning()) {
      try {
        ApexBridge.onUnbind();
      } catch (RuntimeException | LinkageError e) {
        Log.e(CetpRuntime.TAG, "CETP Apex onUnbind failed in the Java bridge", e);
      }
    }
    return false;
  }

  /** One native answer, given the caller; null when the library could not answer. */
  private interface Answer {
    @Nullable String from(CallerIdentity caller);
  }

  /** The binder every host gets. Its methods run on Binder threads. */
  private final class Plugin extends IApexPlugin.Stub {
    @Override
    public @Nullable String getMetadataJson() {
      return answer(
          CetpRuntime.ApexMethod.METADATA,
          c -> ApexBridge.metadataJson(c.uid, c.token, c.packages, c.certificateDigests));
    }

    @Override
    public @Nullable String getToolsJson() {
      return answer(
          CetpRuntime.ApexMethod.TOOLS,
          c -> ApexBridge.toolsJson(c.uid, c.token, c.packages, c.certificateDigests));
    }

    @Override
    public @Nullable String executeTool(@Nullable String toolId, @Nullable String argumentsJson) {
      return answer(
          CetpRuntime.ApexMethod.EXECUTE,
          c -> {
            String[] reply =
                ApexBridge.executeTool(
                    toolId, argumentsJson, c.uid, c.token, c.packages, c.certificateDigests);
            if (reply == null || reply.length != 2 || reply[0] == null) {
              return null;
            }
            if (Wire.CODE_AUTH_REQUIRED.equals(reply[1])) {
              CetpApprovalNotification.post(ApexPluginService.this, c.uid);
            }
            return reply[0];
          });
    }

    @Override
    public void onActivate() {
      answer(
          CetpRuntime.ApexMethod.LIFECYCLE,
          c -> {
            ApexBridge.onActivate(c.uid, c.token, c.packages, c.certificateDigests);
            return "";
          });
    }

    @Override
    public void onDeactivate() {
      answer(
          CetpRuntime.ApexMethod.LIFECYCLE,
          c -> {
            ApexBridge.onDeactivate(c.uid, c.token, c.packages, c.certificateDigests);
            return "";
          });
    }
  }

  /**
   * One transaction: the runtime started, the caller's identity from the Binder thread, one JNI
   * call. Never throws; returns what the host gets (for the lifecycle methods, ignored).
   */
  private @Nullable String answer(CetpRuntime.ApexMethod method, Answer answer) {
    int uid = Binder.getCallingUid();
    String reason;
    try {
      reason = CetpRuntime.ensureStarted(this);
      if (reason == null) {
        String reply = answer.from(CallerIdentity.resolve(this, uid));
        if (reply != null) {
          return reply;
        }
        reason = CetpRuntime.BRIDGE_FAILED;
      }
    } catch (RuntimeException | LinkageError e) {
      Log.e(CetpRuntime.TAG, "CETP Apex " + method + " failed in the Java bridge", e);
      reason = "it failed unexpectedly inside the app";
    }
    return CetpRuntime.unavailableApex(method, CetpRuntime.appPackage(this), reason);
  }
}
