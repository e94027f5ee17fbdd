package dev.cetp.harness;

import android.os.Bundle;
import java.util.Set;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;
import org.json.JSONTokener;

/**
 * A CETP reply as a consumer reads it. The CETP keys must hold Strings when present: the real
 * client reads them with {@code getString}, which turns a wrongly typed value into null, so this
 * class fails loudly instead. {@link #isSuccess()} is true only for status {@code "success"}; any
 * other status (or none) is an error, as in the ClawSeed client.
 */
public final class CetpResponse {
  /** Reply key: {@code success} or {@code error}. */
  public static final String KEY_STATUS = "status";
  /** Reply key: the result's JSON text. */
  public static final String KEY_DATA = "data";
  /** Reply key: the CETP error code. */
  public static final String KEY_ERROR_CODE = "error_code";
  /** Reply key: the error message for the model. */
  public static final String KEY_ERROR_MESSAGE = "error_message";
  /** Reply key: what the user should do. */
  public static final String KEY_RESOLUTION_HINT = "resolution_hint";
  /** Reply key: the consent dialog's action. */
  public static final String KEY_AUTHORIZE_INTENT = "authorize_intent";

  private final Bundle bundle;

  CetpResponse(Bundle bundle) {
    this.bundle = bundle;
    if (bundle != null) {
      for (String key :
          new String[] {
            KEY_STATUS, KEY_DATA, KEY_ERROR_CODE, KEY_ERROR_MESSAGE, KEY_RESOLUTION_HINT,
            KEY_AUTHORIZE_INTENT
          }) {
        stringOrNull(key);
      }
    }
  }

  /** True when the provider returned a null Bundle (the client's "Provider call failed"). */
  public boolean isNull() {
    return bundle == null;
  }

  /** The Bundle as read back from the Parcel. */
  public Bundle bundle() {
    return bundle;
  }

  /** The keys of the reply Bundle. */
  public Set<String> keys() {
    return requireBundle().keySet();
  }

  /** The {@code status} value, or null. */
  public String status() {
    return stringOrNull(KEY_STATUS);
  }

  /** Whether the status is exactly {@code success}, as consumers decide. */
  public boolean isSuccess() {
    return "success".equals(status());
  }

  /** The {@code data} value (JSON text), or null. */
  public String data() {
    return stringOrNull(KEY_DATA);
  }

  /** The {@code error_code} value, or null. */
  public String errorCode() {
    return stringOrNull(KEY_ERROR_CODE);
  }

  /** The {@code error_message} value, or null. */
  public String errorMessage() {
    return stringOrNull(KEY_ERROR_MESSAGE);
  }

  /** The {@code resolution_hint} value, or null. */
  public String resolutionHint() {
    return stringOrNull(KEY_RESOLUTION_HINT);
  }

  /** The {@code authorize_intent} value, or null. */
  public String authorizeIntent() {
    return stringOrNull(KEY_AUTHORIZE_INTENT);
  }

  /** {@code data} parsed as a JSON object (org.json from the framework jar). */
  public JSONObject dataObject() {
    Object v = dataValue();
    if (!(v instanceof JSONObject)) {
      throw new IllegalStateException("data is not a JSON object: " + data());
    }
    return (JSONObject) v;
  }

  /**
   * {@code data} parsed as one JSON value (object, array, string, number, boolean or NULL); fails
   * if absent, malformed or followed by trailing text.
   */
  public Object dataValue() {
    String text = data();
    if (text == null) {
      throw new IllegalStateException("no data in " + this);
    }
    try {
      JSONTokener t = new JSONTokener(text);
      Object v = t.nextValue();
      if (t.more() && t.nextClean() != 0) {
        throw new IllegalStateException("trailing text after JSON in data: " + text);
      }
      return v;
    } catch (JSONException e) {
      throw new IllegalStateException("data is not JSON: " + text, e);
    }
  }

  /** Convenience: {@code data.tools} of a list_tools reply. */
  public JSONArray tools() {
    try {
      return dataObject().getJSONArray("tools");
    } catch (JSONException e) {
      throw new IllegalStateException("no tools array in " + data(), e);
    }
  }

  @SuppressWarnings("deprecation") // Bundle.get(String): check the raw type.
  private String stringOrNull(String key) {
    Object v = requireBundle().get(key);
    if (v != null && !(v instanceof String)) {
      throw new IllegalStateException(
          "CETP key '" + key + "' must be a String but is " + v.getClass().getName() + ": " + v);
    }
    return (String) v;
  }

  private Bundle requireBundle() {
    if (bundle == null) {
      throw new IllegalStateException("the provider returned a null Bundle");
    }
    return bundle;
  }

  @Override
  public String toString() {
    if (bundle == null) {
      return "CetpResponse{null}";
    }
    return "CetpResponse{status="
        + status()
        + ", error_code="
        + errorCode()
        + ", error_message="
        + errorMessage()
        + ", data="
        + data()
        + "}";
  }
}
