package dev.cetp.testkit;

import android.os.Bundle;
import dev.cetp.testkit.internal.ApexAgent;
import dev.cetp.testkit.internal.ConsentAdmin;
import dev.cetp.testkit.internal.Callers;
import dev.cetp.testkit.internal.Wire;
import java.util.ArrayList;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;
import org.jspecify.annotations.Nullable;

/**
 * An agent app calling the provider: a package under a UID with a signing certificate, as
 * {@code Binder.getCallingUid()} and the PackageManager report it to the provider. Every call
 * is made from its UID and the reply read after a {@code Parcel} round trip.
 *
 * <pre>{@code
 * Agent agent = cetp.agent("com.example.agent");
 * agent.call("find_items", "{\"words\":\"soup\"}").assertError("AUTH_REQUIRED");
 * agent.approve(Approval.limited().expiringAfter(Duration.ofDays(1)));
 * agent.call("find_items", "{\"words\":\"soup\"}").assertSuccess();
 * }</pre>
 */
public final class Agent {
  private final CetpTestRule rule;
  private final int uid;
  private final String packageName;
  private final String label;
  private final byte[] certificate;

  Agent(CetpTestRule rule, int uid, String packageName, String label, byte[] certificate) {
    this.rule = rule;
    this.uid = uid;
    this.packageName = packageName;
    this.label = label;
    this.certificate = certificate.clone();
  }

  /** @return the agent's UID */
  public int uid() {
    return uid;
  }

  /** @return the agent's package */
  public String packageName() {
    return packageName;
  }

  /** @return the label the user sees (the package name when the agent was given none) */
  public String label() {
    return label == null ? packageName : label;
  }

  /** @return the lower-case hex SHA-256 of its signing certificate, as grants pin it */
  public String certificateSha256() {
    return Callers.sha256Hex(certificate);
  }

  /** @return {@code list_tools} (CETP), answered to anyone */
  public ToolReply listTools() {
    return cetp(Wire.METHOD_LIST_TOOLS, new Bundle());
  }

  /** @return {@code get_provider_info} (CETP), answered to anyone */
  public ToolReply providerInfo() {
    return cetp(Wire.METHOD_GET_PROVIDER_INFO, new Bundle());
  }

  /**
   * {@code execute_tool} through {@code ContentResolver.call(Uri, …)}, as the ClawSeed client
   * calls.
   *
   * @param tool the tool's name
   * @param argsJson the arguments as JSON text (null: no {@code args} extra)
   * @return the reply
   */
  public ToolReply call(String tool, @Nullable String argsJson) {
    return call(CallForm.URI, tool, argsJson);
  }

  /**
   * {@code execute_tool} in the given {@code ContentResolver.call} form.
   *
   * @param form {@code URI} ({@code content://authority}) or {@code AUTHORITY} (API 29+)
   * @param tool the tool's name
   * @param argsJson the arguments as JSON text (null: no {@code args} extra)
   * @return the reply
   */
  public ToolReply call(CallForm form, String tool, @Nullable String argsJson) {
    return call(form, tool, argsJson, null);
  }

  /**
   * {@code execute_tool} with the caller's {@code request_id}, which the provider echoes in its
   * access log and hands the tool.
   *
   * @param tool the tool's name
   * @param argsJson the arguments as JSON text (null: no {@code args} extra)
   * @param requestId the {@code request_id} extra (null: none)
   * @return the reply
   */
  public ToolReply call(
      String tool, @Nullable String argsJson, @Nullable String requestId) {
    return call(CallForm.URI, tool, argsJson, requestId);
  }

  /**
   * {@code execute_tool} in the given {@code ContentResolver.call} form, with the caller's
   * {@code request_id}.
   *
   * @param form {@code URI} ({@code content://authority}) or {@code AUTHORITY} (API 29+)
   * @param tool the tool's name
   * @param argsJson the arguments as JSON text (null: no {@code args} extra)
   * @param requestId the {@code request_id} extra (null: none)
   * @return the reply
   */
  public ToolReply call(
      CallForm form, String tool, @Nullable String argsJson, @Nullable String requestId) {
    Bundle extras = new Bundle();
    extras.putString(Wire.EXTRA_TOOL_NAME, tool);
    if (argsJson != null) {
      extras.putString(Wire.EXTRA_ARGS, argsJson);
    }
    if (requestId != null) {
      extras.putString(Wire.EXTRA_REQUEST_ID, requestId);
    }
    return cetp(form, Wire.METHOD_EXECUTE_TOOL, extras);
  }

  /**
   * Any method with exactly {@code extras}, from this agent, in {@code form}; the reply read as a
   * CETP v1 agent reads it. Nothing is added: for what well-behaved agents never send.
   *
   * @param form which {@code ContentResolver.call} overload
   * @param method any method name
   * @param extras what to send (null: no Bundle)
   * @return the reply ({@link ToolReply#isNull()} when the provider answered no Bundle)
   */
  public ToolReply request(CallForm form, String method, @Nullable Bundle extras) {
    return cetp(form, method, extras);
  }

  private ToolReply cetp(String method, Bundle extras) {
    return cetp(CallForm.URI, method, extras);
  }

  private ToolReply cetp(CallForm form, String method, Bundle extras) {
    String authority = rule.authority();
    // The calls arrive from this agent until another one calls (an agent opens its
    // authorize_intent right after its call, and the screens see the same caller).
    Callers.setCallingUid(uid);
    return rule.transport().call(form, authority, method, extras);
  }

  /**
   * Negotiates CETP v2 as ClawSeed's newest client does and accepts the answer only as it does:
   * the manifest must list 2 in its {@code com.clawseed.tools.versions} string and the authority
   * must belong to the discovery Service's app; {@code negotiate} ({@code consumer_versions}
   * {@code {2, 1}}, no capability) must answer {@code selected_version} 2, a provider id that is
   * the package or under it, a provider name, a session token of at most 256 bytes, only
   * capabilities asked for, and limits at or above 64 KiB, 256 KiB, 1 and 86,400 s.
   *
   * @return the session
   * @throws AssertionError naming what the client refuses
   */
  public V2Session v2() {
    if (!rule.advertisedVersions().contains(CetpV2.PROTOCOL_VERSION)) {
      throw new AssertionError(
          rule.packageName()
              + " does not advertise CETP v2: its discovery Service's "
              + CetpV2.META_VERSIONS
              + " reads "
              + rule.discoveryMetaData().getString(CetpV2.META_VERSIONS)
              + " with getString");
    }
    rule.requireProviderOfDiscoveryPackage();
    return V2Session.negotiate(this, rule);
  }

  /**
   * Like {@link #v2()}, asking in {@code negotiate} for the optional {@code capabilities} (such
   * as {@link CetpV2#CAPABILITY_LARGE_RESULTS}), as ClawSeed's client does; the session holds
   * those the provider granted, and fails any reply that uses one it did not.
   *
   * @param capabilities the capabilities to ask for
   * @return the accepted session
   */
  public V2Session v2(String... capabilities) {
    V2Session session = v2();
    return session.renegotiate(capabilities);
  }

  /**
   * {@code negotiate} with exactly these values, nothing checked (for tests of what a provider
   * answers other agents).
   *
   * @param consumerVersions {@code consumer_versions} (null: absent)
   * @param capabilitiesJson {@code consumer_capabilities} (null: absent)
   * @return the reply
   */
  public V2Reply negotiate(
      int @Nullable [] consumerVersions, @Nullable String capabilitiesJson) {
    Bundle extras = new Bundle();
    if (consumerVersions != null) {
      extras.putIntArray(CetpV2.EXTRA_CONSUMER_VERSIONS, consumerVersions);
    }
    if (capabilitiesJson != null) {
      extras.putString(CetpV2.EXTRA_CONSUMER_CAPABILITIES, capabilitiesJson);
    }
    return send(CetpV2.METHOD_NEGOTIATE, extras);
  }

  /**
   * Calls {@code method} with exactly {@code extras} from this agent, the reply read as a CETP v2
   * agent reads it (a v1 reply reads too: {@link V2Reply#isV1()}). Nothing is added.
   *
   * @param method any method name
   * @param extras what to send (null: no Bundle)
   * @return the reply
   */
  public V2Reply send(String method, @Nullable Bundle extras) {
    Callers.setCallingUid(uid);
    ToolReply reply = rule.transport().call(CallForm.URI, rule.authority(), method, extras);
    return new V2Reply(method, extras, reply.bundle());
  }

  /**
   * The user approves this agent without the screen, through the provider's admin interface (the
   * one the consent dialog uses): the agent calls every tool once (each answering {@code
   * AUTH_REQUIRED}, which records what it asks for), then the request is approved as {@code
   * approval} says.
   *
   * @param approval full or limited, which scopes, which expiry
   * @return this agent
   * @throws IllegalStateException when the provider does not ask the user (its policy lets the
   *     agent in, or denies it)
   */
  public Agent approve(Approval approval) {
    List<String> tools = toolNames();
    if (tools.isEmpty()) {
      throw new IllegalStateException("the provider lists no tool to ask for");
    }
    for (String tool : tools) {
      ToolReply reply = call(tool, "{}");
      if (!Wire.CODE_AUTH_REQUIRED.equals(reply.errorCode())) {
        throw new IllegalStateException(
            "the provider did not ask the user about " + packageName + " (" + tool + ": " + reply
                + "): this agent is approved already (revoke it first to approve it again), or"
                + " the provider's policy decides without approval");
      }
    }
    return approvePending(approval);
  }

  /**
   * The user approves what this agent's refused calls have asked for so far (its pending request:
   * the tools and scopes of every {@code AUTH_REQUIRED} it got), through the provider's admin
   * interface, as {@code approval} says. Nothing is called: {@link #approve(Approval)} without
   * asking for every tool first.
   *
   * @param approval full or limited, which scopes (none named: every scope asked for), which
   *     expiry
   * @return this agent
   * @throws AssertionError when the agent has no pending request
   */
  public Agent approvePending(Approval approval) {
    String id;
    try {
      id = ConsentAdmin.pendingFrom(uid).getString(Wire.ADMIN_KEY_ID);
    } catch (JSONException e) {
      throw new AssertionError(e);
    }
    ConsentAdmin.approve(id, approval.access.wire, approval.scopes, approval.expiry);
    return this;
  }

  /**
   * Opens the consent dialog as the agent does with the {@code authorize_intent} of a refused
   * call: an implicit Intent with that action, {@code setPackage} of the provider's app, started
   * for result (so the dialog knows which app asks).
   *
   * @param refused an {@code AUTH_REQUIRED} reply of this agent's
   * @return the dialog, closed when the test ends
   */
  public ConsentDialog openConsentDialog(ToolReply refused) {
    if (refused.authorizeIntent() == null) {
      throw new AssertionError("the reply carries no authorize_intent: " + refused);
    }
    Callers.setCallingUid(uid);
    return rule.track(ConsentDialog.open(this, rule.packageName(), refused.authorizeIntent()));
  }

  /**
   * Binds the app's Apex plugin Service as the Apex agent does, with this agent as the host
   * app, through the generated Proxy and real Parcels.
   *
   * @return the bound plugin, unbound when the test ends
   * @throws IllegalStateException when the app does not serve Apex
   */
  public ApexPlugin apex() {
    return apex(ApexAgent.HOST_VERSION);
  }

  /** @return the names {@code list_tools} gives this agent */
  public List<String> toolNames() {
    List<String> names = new ArrayList<>();
    try {
      JSONArray tools = listTools().assertSuccess().jsonObject().getJSONArray("tools");
      for (int i = 0; i < tools.length(); i++) {
        JSONObject tool = tools.getJSONObject(i);
        names.add(tool.getString("name"));
      }
    } catch (JSONException e) {
      throw new AssertionError("list_tools data has no tools array", e);
    }
    return names;
  }

  /**
   * {@link #apex()} as an Apex agent of version {@code hostVersion}: Apex registers a plugin only
   * when its metadata's {@code minHostVersion} is at most the agent's version.
   *
   * @param hostVersion the Apex version the agent claims ({@link #apex()} claims 1)
   * @return the bound plugin, unbound when the test ends
   * @throws AssertionError when Apex would not register the plugin (it needs a newer Apex)
   * @throws IllegalStateException when the app does not serve Apex
   */
  public ApexPlugin apex(int hostVersion) {
    Callers.setCallingUid(uid);
    return rule.track(ApexPlugin.bind(rule.packageName(), uid, hostVersion));
  }

  @Override
  public String toString() {
    return label() + " (" + packageName + ", uid " + uid + ")";
  }
}
