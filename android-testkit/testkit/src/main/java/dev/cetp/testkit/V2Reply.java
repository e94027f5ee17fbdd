package dev.cetp.testkit;

import android.app.PendingIntent;
import android.os.Bundle;
import android.os.ParcelFileDescriptor;
import dev.cetp.testkit.internal.CetpTransport;
import java.io.ByteArrayOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;
import org.json.JSONTokener;
import org.jspecify.annotations.Nullable;

/**
 * What one CETP v2 call answered, read as a v2 agent reads it: the reply Bundle after a
 * {@code Parcel} round trip, each key with the type the specification gives it ({@link
 * #protocolVersion()} an {@code int}, {@link #retryable()} a {@code boolean}, {@link
 * #retryAfterMs()} a {@code long}, {@link #resolution()} a {@code PendingIntent}, the others
 * Strings). A key holding another type fails the getter, where a real agent would silently
 * read null. The reply remembers the request it answers ({@link #request()}), so that a refused
 * call can be resumed ({@link V2Session#resume(V2Reply)}).
 *
 * <pre>{@code
 * V2Reply reply = session.call("find_items", "{\"words\":\"soup\"}").assertSuccess();
 * JSONArray items = (JSONArray) reply.value();
 * session.call("find_items", "{}").assertError(CetpV2.INVALID_ARGS);
 * }</pre>
 */
public final class V2Reply {
  /** The most a large result may have: what ClawSeed's client reads at most. */
  public static final long MAX_LARGE_RESULT_BYTES = 16L * 1024 * 1024;

  private final String method;
  private final Bundle request;
  private final Bundle bundle;
  private String largeResultText;

  V2Reply(String method, Bundle request, Bundle bundle) {
    if (bundle == null) {
      throw new AssertionError(method + ": the provider answered a null Bundle");
    }
    this.method = method;
    this.request = request == null ? new Bundle() : new Bundle(request);
    this.bundle = bundle;
  }

  /**
   * A reply the test got another way, read as the kit reads its own: after a {@code Parcel}
   * round trip.
   *
   * @param method the method called
   * @param request the extras sent (null: none)
   * @param reply the reply Bundle
   * @return the reply
   * @throws AssertionError when {@code reply} is null (an agent's "Provider call failed")
   */
  public static V2Reply of(
      String method, @Nullable Bundle request, @Nullable Bundle reply) {
    return new V2Reply(method, request, reply == null ? null : CetpTransport.roundTrip(reply));
  }

  /** @return the method called */
  public String method() {
    return method;
  }

  /** @return a copy of the extras sent (to send again, changed or not) */
  public Bundle request() {
    return new Bundle(request);
  }

  /** @return the keys of the reply Bundle */
  public Set<String> keys() {
    return Collections.unmodifiableSet(new TreeSet<>(bundle.keySet()));
  }

  /** @return {@code protocol_version}, or null when absent (a CETP v1 reply) */
  public @Nullable Integer protocolVersion() {
    return typed(CetpV2.KEY_PROTOCOL_VERSION, Integer.class);
  }

  /** @return whether the reply is CETP v1's (it carries no {@code protocol_version}) */
  public boolean isV1() {
    return !bundle.containsKey(CetpV2.KEY_PROTOCOL_VERSION);
  }

  /** @return {@code request_id}, or null */
  public @Nullable String requestId() {
    return typed(CetpV2.KEY_REQUEST_ID, String.class);
  }

  /** @return {@code status}, or null */
  public @Nullable String status() {
    return typed(CetpV2.KEY_STATUS, String.class);
  }

  /** @return whether the status is exactly {@code success} */
  public boolean isSuccess() {
    return CetpV2.STATUS_SUCCESS.equals(status());
  }

  /** @return {@code data}, the JSON text of a success, or null */
  public @Nullable String data() {
    return typed(CetpV2.KEY_DATA, String.class);
  }

  /** @return {@code error_code}, or null */
  public @Nullable String errorCode() {
    return typed(CetpV2.KEY_ERROR_CODE, String.class);
  }

  /** @return {@code error_message}, or null */
  public @Nullable String errorMessage() {
    return typed(CetpV2.KEY_ERROR_MESSAGE, String.class);
  }

  /** @return {@code resolution_hint}, or null */
  public @Nullable String resolutionHint() {
    return typed(CetpV2.KEY_RESOLUTION_HINT, String.class);
  }

  /** @return {@code retryable}, or null when absent */
  public @Nullable Boolean retryable() {
    return typed(CetpV2.KEY_RETRYABLE, Boolean.class);
  }

  /** @return {@code retry_after_ms}, or null when absent */
  public @Nullable Long retryAfterMs() {
    return typed(CetpV2.KEY_RETRY_AFTER_MS, Long.class);
  }

  /** @return {@code resolution}, the provider's screen for a refused call, or null */
  public @Nullable PendingIntent resolution() {
    return typed(CetpV2.KEY_RESOLUTION, PendingIntent.class);
  }

  /** @return {@code resume_token}, or null */
  public @Nullable String resumeToken() {
    return typed(CetpV2.KEY_RESUME_TOKEN, String.class);
  }

  /** @return {@code result_fd}, the descriptor of a large result, or null */
  public ParcelFileDescriptor resultFd() {
    return typed(CetpV2.KEY_RESULT_FD, ParcelFileDescriptor.class);
  }

  /** @return whether the reply carries a large result: {@code result_fd}, or {@code kind} file */
  public boolean usesLargeResult() {
    if (resultFd() != null) {
      return true;
    }
    if (!isSuccess() || data() == null) {
      return false;
    }
    Object data = parse(data(), "data");
    return data instanceof JSONObject
        && CetpV2.RESULT_KIND_FILE.equals(((JSONObject) data).optString("kind", null));
  }

  /**
   * The JSON text of a large result, read as ClawSeed's client reads it: {@code data} is {@code
   * {"kind":"file"}} with {@code media_type} {@code application/json}, a {@code size_bytes} of at
   * most 16 MiB and a {@code sha256} of 64 lowercase hex digits; {@code result_fd} is read-only
   * and reads exactly {@code size_bytes} bytes with that digest; the text is one JSON value. The
   * descriptor is read once and closed; the text is kept for later calls.
   *
   * @return the result's JSON text
   * @throws AssertionError when any of that does not hold
   */
  public String largeResultText() {
    if (largeResultText != null) {
      return largeResultText;
    }
    JSONObject envelope = jsonObject();
    if (!CetpV2.RESULT_KIND_FILE.equals(envelope.optString("kind", null))) {
      throw new AssertionError("data is not a large result envelope: " + data());
    }
    ParcelFileDescriptor fd = resultFd();
    if (fd == null) {
      throw new AssertionError("a large result without " + CetpV2.KEY_RESULT_FD + ": " + this);
    }
    try (ParcelFileDescriptor.AutoCloseInputStream in =
        new ParcelFileDescriptor.AutoCloseInputStream(fd)) {
      if (!CetpV2.MEDIA_TYPE_JSON.equals(envelope.optString("media_type", null))) {
        throw new AssertionError("media_type is not " + CetpV2.MEDIA_TYPE_JSON + ": " + data());
      }
      Object size = envelope.opt("size_bytes");
      long declared = size instanceof Number ? ((Number) size).longValue() : -1;
      if (declared < 0 || declared > MAX_LARGE_RESULT_BYTES) {
        throw new AssertionError("size_bytes is not 0 to 16 MiB: " + data());
      }
      String digest = envelope.optString("sha256", "");
      if (!digest.matches("[0-9a-f]{64}")) {
        throw new AssertionError("sha256 is not 64 lowercase hex digits: " + data());
      }
      if (writable(fd)) {
        throw new AssertionError("result_fd is writable: " + this);
      }
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      ByteArrayOutputStream bytes = new ByteArrayOutputStream((int) declared);
      byte[] buffer = new byte[8192];
      long total = 0;
      for (int n; (n = in.read(buffer)) >= 0; ) {
        total += n;
        if (total > declared) {
          throw new AssertionError("result_fd has more than size_bytes " + declared);
        }
        sha.update(buffer, 0, n);
        bytes.write(buffer, 0, n);
      }
      if (total != declared) {
        throw new AssertionError(total + " bytes in result_fd, size_bytes says " + declared);
      }
      StringBuilder actual = new StringBuilder();
      for (byte b : sha.digest()) {
        actual.append(String.format("%02x", b));
      }
      if (!actual.toString().equals(digest)) {
        throw new AssertionError("result_fd's bytes do not have the announced sha256");
      }
      String text = new String(bytes.toByteArray(), StandardCharsets.UTF_8);
      parse(text, "the large result");
      largeResultText = text;
      return text;
    } catch (IOException | NoSuchAlgorithmException e) {
      throw new AssertionError("result_fd cannot be read: " + this, e);
    }
  }

  /**
   * @return {@code data} parsed: a {@link JSONObject}, {@link JSONArray}, String, Number, Boolean
   *     or {@link JSONObject#NULL}
   * @throws AssertionError when the call failed or the data is not one JSON value
   */
  public Object json() {
    if (!isSuccess() || data() == null) {
      throw new AssertionError("expected success with data, got " + this);
    }
    return parse(data(), "data");
  }

  /**
   * @return {@code data} as a JSON object (what every v2 success carries)
   * @throws AssertionError when it is not one
   */
  public JSONObject jsonObject() {
    Object value = json();
    if (!(value instanceof JSONObject)) {
      throw new AssertionError("data is not a JSON object: " + data());
    }
    return (JSONObject) value;
  }

  /**
   * The result of {@code execute_tool}: {@code data} must be {@code {"kind":"inline","value":…}},
   * or a large result ({@link #largeResultText()}).
   *
   * @return the {@code value}, parsed as {@link #json()} parses
   * @throws AssertionError when the call failed or the envelope is not an inline result
   */
  public Object value() {
    JSONObject envelope = jsonObject();
    if (CetpV2.RESULT_KIND_FILE.equals(envelope.optString("kind", null))) {
      return parse(largeResultText(), "the large result");
    }
    if (!CetpV2.RESULT_KIND_INLINE.equals(envelope.optString("kind", null))) {
      throw new AssertionError("data is not an inline result envelope: " + data());
    }
    if (!envelope.has("value")) {
      throw new AssertionError("the inline result has no value: " + data());
    }
    try {
      return envelope.get("value");
    } catch (JSONException e) {
      throw new AssertionError(e);
    }
  }

  /** @return whether the status is exactly {@code accepted}: the call goes on as an operation */
  public boolean isAccepted() {
    return CetpV2.STATUS_ACCEPTED.equals(status());
  }

  /**
   * Fails unless {@code execute_tool} was answered {@code accepted} as the specification says:
   * {@code protocol_version} 2, the request id echoed, {@code data} an object with a non-empty
   * {@code operation_id} string and a {@code poll_after_ms} number of 0 or more, no error code.
   *
   * @return this reply
   */
  public V2Reply assertAccepted() {
    if (!isAccepted()) {
      throw new AssertionError("expected accepted, got " + this);
    }
    assertEnvelope();
    if (errorCode() != null) {
      throw new AssertionError("an accepted reply with an error code: " + this);
    }
    JSONObject data = dataObject();
    if (data == null) {
      throw new AssertionError("an accepted reply whose data is not a JSON object: " + this);
    }
    Object id = data.opt(CetpV2.EXTRA_OPERATION_ID);
    if (!(id instanceof String) || ((String) id).isEmpty()) {
      throw new AssertionError("an accepted reply without an operation_id: " + this);
    }
    Object poll = data.opt("poll_after_ms");
    if (!(poll instanceof Number) || ((Number) poll).longValue() < 0) {
      throw new AssertionError("an accepted reply without a poll_after_ms: " + this);
    }
    return this;
  }

  /**
   * @return {@code data.operation_id}: of an {@code accepted} reply, or of a {@code
   *     get_operation} / {@code cancel_operation} answer; null when there is none
   */
  public @Nullable String operationId() {
    return dataString(CetpV2.EXTRA_OPERATION_ID);
  }

  /** @return {@code data.poll_after_ms}, the wait before the next poll, or null when absent */
  public @Nullable Long pollAfterMs() {
    JSONObject data = dataObject();
    Object poll = data == null ? null : data.opt("poll_after_ms");
    return poll instanceof Number ? ((Number) poll).longValue() : null;
  }

  /**
   * @return {@code data.state} of a {@code get_operation} answer ({@link CetpV2#STATE_QUEUED},
   *     {@link CetpV2#STATE_RUNNING}, {@link CetpV2#STATE_SUCCEEDED}, {@link
   *     CetpV2#STATE_FAILED}, {@link CetpV2#STATE_CANCELLED}) or of a {@code cancel_operation}
   *     answer ({@link CetpV2#STATE_CANCELLATION_REQUESTED}), or null
   */
  public @Nullable String state() {
    return dataString("state");
  }

  /** @return whether {@link #state()} is {@code succeeded}, {@code failed} or {@code cancelled} */
  public boolean isTerminal() {
    String state = state();
    return CetpV2.STATE_SUCCEEDED.equals(state)
        || CetpV2.STATE_FAILED.equals(state)
        || CetpV2.STATE_CANCELLED.equals(state);
  }

  /**
   * Fails unless the call succeeded ({@link #assertSuccess()}) with {@code data.state} {@code
   * state}.
   *
   * @param state the expected state, e.g. {@link CetpV2#STATE_RUNNING}
   * @return this reply
   */
  public V2Reply assertState(String state) {
    assertSuccess();
    if (!state.equals(state())) {
      throw new AssertionError("expected state " + state + ", got " + this);
    }
    return this;
  }

  /** @return {@code data.progress.current} of a running operation, or null without progress */
  public @Nullable Long progressCurrent() {
    JSONObject progress = progress();
    Object current = progress == null ? null : progress.opt("current");
    return current instanceof Number ? ((Number) current).longValue() : null;
  }

  /** @return {@code data.progress.total}, or null when absent (the tool does not know it) */
  public @Nullable Long progressTotal() {
    JSONObject progress = progress();
    Object total = progress == null ? null : progress.opt("total");
    return total instanceof Number ? ((Number) total).longValue() : null;
  }

  /** @return {@code data.progress.message}, or null when absent */
  public @Nullable String progressMessage() {
    JSONObject progress = progress();
    Object message = progress == null ? null : progress.opt("message");
    return message instanceof String ? (String) message : null;
  }

  /**
   * @return {@code data.result} of a {@code succeeded} operation: the envelope a synchronous
   *     success carries in {@code data} ({@code {"kind":"inline","value":…}}), or null
   */
  public @Nullable JSONObject operationResult() {
    JSONObject data = dataObject();
    return data == null ? null : data.optJSONObject("result");
  }

  /**
   * The result of a {@code succeeded} operation, read as {@link #value()} reads a synchronous
   * one.
   *
   * @return {@code data.result.value}
   * @throws AssertionError when the state is not {@code succeeded} or the result is not an inline
   *     envelope with a value
   */
  public Object operationValue() {
    assertState(CetpV2.STATE_SUCCEEDED);
    JSONObject result = operationResult();
    if (result == null
        || !CetpV2.RESULT_KIND_INLINE.equals(result.optString("kind", null))
        || !result.has("value")) {
      throw new AssertionError("a succeeded operation without an inline result: " + this);
    }
    return result.opt("value");
  }

  /**
   * @return {@code data.error} of a {@code failed} operation ({@code error_code}, {@code
   *     error_message}, {@code retryable}, perhaps {@code retry_after_ms}), or null
   */
  public @Nullable JSONObject operationError() {
    JSONObject data = dataObject();
    return data == null ? null : data.optJSONObject("error");
  }

  /** @return {@code data.error.error_code} of a {@code failed} operation, or null */
  public @Nullable String operationErrorCode() {
    JSONObject error = operationError();
    Object code = error == null ? null : error.opt(CetpV2.KEY_ERROR_CODE);
    return code instanceof String ? (String) code : null;
  }

  private @Nullable JSONObject progress() {
    JSONObject data = dataObject();
    return data == null ? null : data.optJSONObject("progress");
  }

  private @Nullable String dataString(String key) {
    JSONObject data = dataObject();
    Object value = data == null ? null : data.opt(key);
    return value instanceof String ? (String) value : null;
  }

  /** {@code data} as an object, or null when absent or not one (never throws). */
  private @Nullable JSONObject dataObject() {
    String text = data();
    if (text == null) {
      return null;
    }
    try {
      Object value = new JSONTokener(text).nextValue();
      return value instanceof JSONObject ? (JSONObject) value : null;
    } catch (JSONException e) {
      return null;
    }
  }

  /**
   * Fails unless the call succeeded with a v2 envelope: {@code status} success, {@code
   * protocol_version} 2, the request id echoed (every method but {@code negotiate}), {@code data}
   * one JSON value.
   *
   * @return this reply
   */
  public V2Reply assertSuccess() {
    if (!isSuccess()) {
      throw new AssertionError("expected success, got " + this);
    }
    assertEnvelope();
    if (data() == null) {
      throw new AssertionError("a success without data: " + this);
    }
    parse(data(), "data");
    return this;
  }

  /**
   * Fails unless the call was refused with {@code code} in a v2 error envelope: {@code
   * protocol_version} 2, the request id echoed when the request had a valid one, a message that is
   * not blank, {@code retryable} present and as the specification fixes it for {@code code}
   * ({@code true} for {@code NEGOTIATION_REQUIRED}, {@code RATE_LIMITED}, {@code UNAVAILABLE};
   * {@code false} for the codes it marks "No"), no {@code data}.
   *
   * @param code the expected error code, e.g. {@link CetpV2#INVALID_ARGS}
   * @return this reply
   */
  public V2Reply assertError(String code) {
    if (!CetpV2.STATUS_ERROR.equals(status()) || !code.equals(errorCode())) {
      throw new AssertionError("expected error " + code + ", got " + this);
    }
    assertEnvelope();
    String message = errorMessage();
    if (message == null || message.trim().isEmpty()) {
      throw new AssertionError("an error without a message: " + this);
    }
    Boolean retryable = retryable();
    if (retryable == null) {
      throw new AssertionError("an error without retryable: " + this);
    }
    Boolean fixed = fixedRetryable(code);
    if (fixed != null && fixed != retryable) {
      throw new AssertionError(code + " must have retryable=" + fixed + ": " + this);
    }
    if (data() != null) {
      throw new AssertionError("an error with data: " + this);
    }
    return this;
  }

  /**
   * Fails unless the error message contains {@code text}.
   *
   * @param text what the message must contain
   * @return this reply
   */
  public V2Reply assertMessageContains(String text) {
    String message = errorMessage();
    if (message == null || !message.contains(text)) {
      throw new AssertionError(
          "expected an error message containing \"" + text + "\", got " + this);
    }
    return this;
  }

  private void assertEnvelope() {
    Integer version = protocolVersion();
    if (version == null || version != CetpV2.PROTOCOL_VERSION) {
      throw new AssertionError("protocol_version must be 2: " + this);
    }
    String sent = request.getString(CetpV2.EXTRA_REQUEST_ID);
    if (!CetpV2.METHOD_NEGOTIATE.equals(method) && isUuid(sent) && !sent.equals(requestId())) {
      throw new AssertionError("request_id " + sent + " is not echoed: " + this);
    }
  }

  /** The retryable value the specification's error table fixes for {@code code}, or null. */
  static Boolean fixedRetryable(String code) {
    switch (code) {
      case CetpV2.NEGOTIATION_REQUIRED:
      case CetpV2.RATE_LIMITED:
      case CetpV2.UNAVAILABLE:
        return Boolean.TRUE;
      case CetpV2.UNSUPPORTED_VERSION:
      case CetpV2.UNSUPPORTED_CAPABILITY:
      case CetpV2.USER_CANCELLED:
      case CetpV2.PERMISSION_DENIED:
      case CetpV2.TOOL_NOT_FOUND:
      case CetpV2.METHOD_NOT_FOUND:
      case CetpV2.INVALID_ARGS:
      case CetpV2.INVALID_REQUEST:
      case CetpV2.CANCELLED:
      case CetpV2.RESULT_TOO_LARGE:
      case CetpV2.RESULT_EXPIRED:
        return Boolean.FALSE;
      default:
        return null;
    }
  }

  static boolean isUuid(String text) {
    if (text == null || text.length() != 36) {
      return false;
    }
    try {
      return UUID.fromString(text).toString().equalsIgnoreCase(text);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  static Object parse(String text, String what) {
    try {
      JSONTokener tokens = new JSONTokener(text);
      Object value = tokens.nextValue();
      if (tokens.more() && tokens.nextClean() != 0) {
        throw new AssertionError("text after the JSON value in " + what + ": " + text);
      }
      return value;
    } catch (JSONException e) {
      throw new AssertionError(what + " is not JSON: " + text, e);
    }
  }

  /** Whether a byte can be written through {@code fd} (it stays open either way). */
  private static boolean writable(ParcelFileDescriptor fd) {
    // Not closed: closing the stream would close the descriptor it borrows.
    FileOutputStream out = new FileOutputStream(fd.getFileDescriptor());
    try {
      out.write(' ');
      return true;
    } catch (IOException readOnly) {
      return false;
    }
  }

  @SuppressWarnings("deprecation") // Bundle.get(String): the raw type is what is checked.
  private <T> T typed(String key, Class<T> type) {
    Object value = bundle.get(key);
    if (value != null && !type.isInstance(value)) {
      throw new AssertionError(
          "CETP v2 key '"
              + key
              + "' must be a "
              + type.getSimpleName()
              + " but is a "
              + value.getClass().getName()
              + ": "
              + value);
    }
    return type.cast(value);
  }

  @Override
  @SuppressWarnings("deprecation") // Bundle.get(String): shows whatever is there
  public String toString() {
    StringBuilder out = new StringBuilder(method).append(": ");
    Object version = bundle.get(CetpV2.KEY_PROTOCOL_VERSION);
    out.append(version == null ? "v1 " : "v" + version + " ");
    Object status = bundle.get(CetpV2.KEY_STATUS);
    out.append(status);
    if (CetpV2.STATUS_SUCCESS.equals(status) || CetpV2.STATUS_ACCEPTED.equals(status)) {
      out.append(" ").append(bundle.get(CetpV2.KEY_DATA));
    } else {
      out.append(" ")
          .append(bundle.get(CetpV2.KEY_ERROR_CODE))
          .append(": ")
          .append(bundle.get(CetpV2.KEY_ERROR_MESSAGE));
    }
    out.append(" (keys ").append(keys()).append(")");
    return out.toString();
  }
}
