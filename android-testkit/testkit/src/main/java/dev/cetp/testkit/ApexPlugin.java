package dev.cetp.testkit;

import android.app.Service;
import android.content.ComponentName;
import dev.cetp.testkit.internal.ApexAgent;
import dev.cetp.testkit.internal.Callers;
import java.util.Map;
import org.json.JSONObject;
import org.jspecify.annotations.Nullable;

/**
 * The app's Apex plugin Service as the Apex agent binds it: found by the action {@code
 * com.apex.agent.plugin.PLUGIN}, bound with {@code bindService}, its metadata checked, its tools
 * read, {@code onActivate} called; every call goes through the {@code IApexPlugin} Proxy and Stub
 * the real AIDL compiler generated, in real Parcels, from the agent's UID.
 *
 * <pre>{@code
 * try (ApexPlugin apex = agent.apex()) {
 *   apex.call("find_items", "{\"words\":\"soup\"}").assertError("AUTH_REQUIRED");
 * }
 * }</pre>
 */
public final class ApexPlugin implements AutoCloseable {
  /** The template's plugin Service. */
  public static final String SERVICE = "dev.cetp.ApexPluginService";

  private final ApexAgent host;
  private final ApexAgent.Plugin plugin;
  private final Service service;
  private final int uid;
  private boolean closed;

  private ApexPlugin(ApexAgent host, ApexAgent.Plugin plugin, Service service, int uid) {
    this.host = host;
    this.plugin = plugin;
    this.service = service;
    this.uid = uid;
  }

  static ApexPlugin bind(String packageName, int uid, int hostVersion) {
    ComponentName component = new ComponentName(packageName, SERVICE);
    ApexAgent host = new ApexAgent(ApexAgent.Mode.PARCELED, hostVersion);
    if (!host.discover().contains(component)) {
      throw new IllegalStateException(
          packageName
              + " does not serve Apex: add resValue(\"bool\", \"cetp_serve_apex\", \"true\") to"
              + " defaultConfig in android/build.gradle.kts (or serve-apex = \"true\" under"
              + " [package.metadata.cetp])");
    }
    Service service = ApexAgent.publish(component, ApexAgent.bindIntent(component));
    try {
      return new ApexPlugin(host, host.bind(component), service, uid);
    } catch (ApexAgent.Refused e) {
      service.onDestroy();
      throw new AssertionError("Apex would not register the plugin: " + e.getMessage(), e);
    }
  }

  /** @return {@code getMetadataJson()} as Apex read it */
  public JSONObject metadata() {
    return plugin.metadata;
  }

  /** @return the tools as Apex registered them, by id ({@code <label>__<tool>}) */
  public Map<String, ApexTool> tools() {
    return plugin.tools;
  }

  /**
   * {@code executeTool} from the agent's UID.
   *
   * @param tool a tool id ({@code recipes__find_items}) or the CETP name ({@code find_items})
   * @param argumentsJson the arguments as JSON text
   * @return the reply
   */
  public ToolReply call(String tool, String argumentsJson) {
    String id = tool;
    if (!plugin.tools.containsKey(id)) {
      for (String candidate : plugin.tools.keySet()) {
        if (candidate.endsWith("__" + tool)) {
          id = candidate;
        }
      }
    }
    Callers.setCallingUid(uid);
    return ToolReply.ofApex(plugin.execute(id, argumentsJson));
  }

  /** Unbinds as Apex does ({@code onDeactivate}, {@code unbindService}) and stops the Service. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    host.unbind(plugin);
    service.onDestroy();
  }

  /**
   * {@code executeTool} with exactly {@code id}, from the agent's UID: no CETP name is looked up,
   * as when Apex's model names a function the plugin never registered.
   *
   * @param id the tool id as Apex sends it (null: none)
   * @param argumentsJson the arguments as JSON text (null: none)
   * @return the reply
   */
  public ToolReply callId(@Nullable String id, @Nullable String argumentsJson) {
    Callers.setCallingUid(uid);
    return ToolReply.ofApex(plugin.execute(id, argumentsJson));
  }
}
