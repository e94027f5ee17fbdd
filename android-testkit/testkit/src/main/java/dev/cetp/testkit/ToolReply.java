package dev.cetp.testkit;

import android.os.Bundle;
import dev.cetp.testkit.internal.Wire;
import java.util.Set;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;
import org.json.JSONTokener;
import org.jspecify.annotations.Nullable;

/**
 * What one call answered, the same way whichever host carried it: {@link #status()} ({@code
 * success} or {@code error}), {@link #data()} (the result's JSON text), {@link #errorCode()},
 * {@link #errorMessage()}, {@link #resolutionHint()} and {@link #authorizeIntent()}.
 *
 * <p>Over CETP these are the reply Bundle's keys, read after the Bundle went through a {@code
 * Parcel} as Binder would carry it. Over Apex, {@code executeTool} answers the result's JSON
 * text, or {@code Error: <code>: <message>} with a {@code Hint: <hint>} line for {@code
 * AUTH_REQUIRED}; Apex has no authorize intent.
 *
 * <pre>{@code
 * agent.call("find_items", "{\"words\":\"soup\"}").assertSuccess().jsonArray().length();
 * agent.call("find_items", "{}").assertError("INVALID_ARGS");
 * }</pre>
 */
public final class ToolReply {
  /** Which host carried the call. */
  public enum Via {
    /** {@code ContentResolver.call} on the provider (CETP v1). */
    CETP,
    /** {@code IApexPlugin.executeTool} through the plugin Service's binder. */
    APEX
  }

  private final Via via;
  private final Bundle bundle;
  private final String status;
  private final String data;
  private final String errorCode;
  private final String errorMessage;
  private final String resolutionHint;
  private final String authorizeIntent;
  /** What Apex's {@code executeTool} returned (null over CETP). */
  private String text;

  private ToolReply(
      Via via,
      Bundle bundle,
      String status,
      String data,
      String errorCode,
      String errorMessage,
      String resolutionHint,
      String authorizeIntent) {
    this.via = via;
    this.bundle = bundle;
    this.status = status;
    this.data = data;
    this.errorCode = errorCode;
    this.errorMessage = errorMessage;
    this.resolutionHint = resolutionHint;
    this.authorizeIntent = authorizeIntent;
  }

  /**
   * The reply of a CETP call, read as an agent reads it: every key the protocol defines must be
   * a String when present.
   *
   * @param bundle the reply Bundle after its {@code Parcel} round trip (null: the provider
   *     answered none, the agent's "Provider call failed"; see {@link #isNull()})
   * @return the reply
   * @throws AssertionError when a protocol key holds something other than a String
   */
  public static ToolReply of(@Nullable Bundle bundle) {
    if (bundle == null) {
      return new ToolReply(Via.CETP, null, null, null, null, null, null, null);
    }
    return new ToolReply(
        Via.CETP,
        bundle,
        string(bundle, Wire.KEY_STATUS),
        string(bundle, Wire.KEY_DATA),
        string(bundle, Wire.KEY_ERROR_CODE),
        string(bundle, Wire.KEY_ERROR_MESSAGE),
        string(bundle, Wire.KEY_RESOLUTION_HINT),
        string(bundle, Wire.KEY_AUTHORIZE_INTENT));
  }

  @SuppressWarnings("deprecation") // Bundle.get(String): the raw type is what is checked.
  private static String string(Bundle bundle, String key) {
    Object value = bundle.get(key);
    if (value != null && !(value instanceof String)) {
      throw new AssertionError(
          "CETP key '" + key + "' must be a String but is " + value.getClass().getName() + ": "
              + value);
    }
    return (String) value;
  }

  /**
   * The reply of an Apex {@code executeTool}: a result, or {@code Error: <code>: <message>}
   * followed by an optional {@code Hint: <hint>} line.
   *
   * @param text what {@code executeTool} returned
   * @return the reply
   */
  public static ToolReply ofApex(String text) {
    if (text == null) {
      throw new AssertionError("executeTool answered null");
    }
    if (!text.startsWith(Wire.APEX_ERROR_PREFIX)) {
      ToolReply result =
          new ToolReply(Via.APEX, null, Wire.STATUS_SUCCESS, text, null, null, null, null);
      result.text = text;
      return result;
    }
    String first = text;
    String hint = null;
    int hintAt = text.indexOf("\nHint: ");
    if (hintAt >= 0) {
      first = text.substring(0, hintAt);
      hint = text.substring(hintAt + "\nHint: ".length());
    }
    int start = Wire.APEX_ERROR_PREFIX.length();
    int colon = first.indexOf(": ", start);
    String code = colon < 0 ? first.substring(start) : first.substring(start, colon);
    String message = colon < 0 ? "" : first.substring(colon + 2);
    ToolReply error =
        new ToolReply(Via.APEX, null, Wire.STATUS_ERROR, null, code, message, hint, null);
    error.text = text;
    return error;
  }

  /** @return which host carried the call */
  public Via via() {
    return via;
  }

  /**
   * @return whether the provider answered no Bundle at all (CETP; an agent reports "Provider call
   *     failed"). Every getter then answers null.
   */
  public boolean isNull() {
    return via == Via.CETP && bundle == null;
  }

  /**
   * @return the reply Bundle as the agent read it back from the {@code Parcel} (null over Apex,
   *     or when the provider answered none)
   */
  public @Nullable Bundle bundle() {
    return bundle;
  }

  /**
   * @return the reply Bundle's keys (CETP), to check that a reply carries nothing else
   * @throws AssertionError over Apex, or when the provider answered no Bundle
   */
  public Set<String> keys() {
    if (bundle == null) {
      throw new AssertionError("no reply Bundle to read keys from: " + this);
    }
    return bundle.keySet();
  }

  /** @return {@code success}, {@code error}, or what else the provider put there (null: none) */
  public @Nullable String status() {
    return status;
  }

  /** @return whether the status is exactly {@code success}, as agents decide */
  public boolean isSuccess() {
    return Wire.STATUS_SUCCESS.equals(status);
  }

  /** @return the result's JSON text (null for an error) */
  public @Nullable String data() {
    return data;
  }

  /** @return the CETP error code ({@code AUTH_REQUIRED}, {@code INVALID_ARGS}, …), or null */
  public @Nullable String errorCode() {
    return errorCode;
  }

  /** @return the error message the model reads, or null */
  public @Nullable String errorMessage() {
    return errorMessage;
  }

  /** @return what the user should do (the hint of {@code AUTH_REQUIRED}), or null */
  public @Nullable String resolutionHint() {
    return resolutionHint;
  }

  /** @return the action of the consent dialog ({@code <app>.CETP_AUTHORIZE}), or null */
  public @Nullable String authorizeIntent() {
    return authorizeIntent;
  }

  /**
   * The result parsed as one JSON value: a {@link JSONObject}, {@link JSONArray}, String, Number,
   * Boolean or {@link JSONObject#NULL}.
   *
   * @return the value
   * @throws AssertionError when the reply has no data (an error) or it is not one JSON value
   */
  public Object json() {
    if (data == null) {
      throw new AssertionError(isSuccess() ? "no data in " + this : "expected success, got " + this);
    }
    try {
      JSONTokener tokens = new JSONTokener(data);
      Object value = tokens.nextValue();
      if (tokens.more() && tokens.nextClean() != 0) {
        throw new AssertionError("text after the JSON value in data: " + data);
      }
      return value;
    } catch (JSONException e) {
      throw new AssertionError("data is not JSON: " + data, e);
    }
  }

  /**
   * @return the result as a JSON object
   * @throws AssertionError when it is not one
   */
  public JSONObject jsonObject() {
    Object value = json();
    if (!(value instanceof JSONObject)) {
      throw new AssertionError("data is not a JSON object: " + data);
    }
    return (JSONObject) value;
  }

  /**
   * @return the result as a JSON array
   * @throws AssertionError when it is not one
   */
  public JSONArray jsonArray() {
    Object value = json();
    if (!(value instanceof JSONArray)) {
      throw new AssertionError("data is not a JSON array: " + data);
    }
    return (JSONArray) value;
  }

  /**
   * Fails unless the call succeeded.
   *
   * @return this reply, to go on with {@link #json()}
   * @throws AssertionError naming the error code and message
   */
  public ToolReply assertSuccess() {
    if (!isSuccess()) {
      throw new AssertionError("expected success, got " + this);
    }
    return this;
  }

  /**
   * Fails unless the call was refused with {@code code}.
   *
   * @param code the expected CETP error code, e.g. {@code INVALID_ARGS}
   * @return this reply, to read the message or the hint
   * @throws AssertionError naming what came instead
   */
  public ToolReply assertError(String code) {
    if (!Wire.STATUS_ERROR.equals(status) || !code.equals(errorCode)) {
      throw new AssertionError("expected error " + code + ", got " + this);
    }
    return this;
  }

  /**
   * Fails unless the error message contains {@code text}.
   *
   * @param text what the message must contain
   * @return this reply
   * @throws AssertionError showing the message
   */
  public ToolReply assertMessageContains(String text) {
    if (errorMessage == null || !errorMessage.contains(text)) {
      throw new AssertionError("expected an error message containing \"" + text + "\", got " + this);
    }
    return this;
  }

  /**
   * @return {@code data.tools} of a {@code list_tools} reply
   * @throws AssertionError when there is none
   */
  public JSONArray tools() {
    try {
      return jsonObject().getJSONArray("tools");
    } catch (JSONException e) {
      throw new AssertionError("no tools array in " + data, e);
    }
  }

  /**
   * @return over Apex, exactly the text {@code executeTool} returned, as Apex's model reads it
   *     (the result, or {@code Error: <code>: <message>} and its {@code Hint:} line); null over
   *     CETP
   */
  public @Nullable String text() {
    return text;
  }

  @Override
  public String toString() {
    if (isNull()) {
      return "CETP null Bundle";
    }
    if (isSuccess()) {
      return via + " success: " + data;
    }
    return via
        + " "
        + status
        + " "
        + errorCode
        + ": "
        + errorMessage
        + (resolutionHint == null ? "" : " (hint: " + resolutionHint + ")");
  }
}
