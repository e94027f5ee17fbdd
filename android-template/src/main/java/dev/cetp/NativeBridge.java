package dev.cetp;

import org.jspecify.annotations.NullUnmarked;

/**
 * The natives of the app's Rust library for the CETP provider and the consent dialog,
 * registered by its {@code JNI_OnLoad} ({@code cetp_provider::export_provider!}). One CETP
 * library per process; {@link CetpRuntime} loads it and starts it before any of these is called.
 *
 * <p>R8/ProGuard must keep this class and its native methods under their names (the module's
 * {@code consumer-rules.pro} does).
 */
@NullUnmarked
final class NativeBridge {
  private NativeBridge() {}

  /**
   * Starts the Rust runtime for the app: the library's build function runs with these values
   * and the provider is built (schemas, grant store). Calling it again starts it afresh.
   *
   * @param noBackupDir {@code Context.getNoBackupFilesDir()}: where the SDK keeps its own files
   * @param versionCode {@code PackageInfo.getLongVersionCode()} of the app
   * @param versionName {@code PackageInfo.versionName}, or null
   * @return null when the provider started, otherwise why not
   */
  static native String init(
      String filesDir, String noBackupDir, String packageName, long versionCode, String versionName);

  /**
   * Answers one {@code ContentResolver.call} in a single JNI crossing.
   *
   * @param toolName the {@code tool_name} extra, or null
   * @param args the {@code args} extra, or null
   * @param requestId the {@code request_id} extra, or null
   * @param callingUid {@code Binder.getCallingUid()}, or -1 when unknown
   * @param callerToken {@link CallerIdentity#token}: the arrays are read only for a new one (or
   *     one that comes with another UID than it was read with)
   * @param packages the packages under the UID ({@link CallerIdentity#packages})
   * @param certificateDigests per package, the hex SHA-256 digests of its signing certificates
   *     ({@link CallerIdentity#certificateDigests})
   * @return the reply as {@code key, value, key, value, ...}, or null if the library could not
   *     answer (the caller then replies itself)
   */
  static native String[] call(
      String method,
      String toolName,
      String args,
      String requestId,
      int callingUid,
      long callerToken,
      String[] packages,
      String[][] certificateDigests);

  /**
   * Answers one {@code ContentResolver.call} whose extras come typed: a call that names its
   * protocol ({@link Wire#EXTRA_PROTOCOL_VERSION}) or is {@link Wire#METHOD_NEGOTIATE}. The
   * library decides which protocol answers.
   *
   * @param extras the extras v1 and v2 read, each of a plain type, as {@code key, tag, value}
   *     ({@link Wire#TAG_STRING} and the others; numbers in decimal, an {@code int[]}
   *     comma-separated)
   * @return the reply as {@code key, tag, value, ...}, or null if the library could not answer
   */
  static native String[] callTyped(
      String method,
      String[] extras,
      int callingUid,
      long callerToken,
      String[] packages,
      String[][] certificateDigests);

  /**
   * A caller-token epoch for this copy of the template's classes, one the library hands out
   * once ({@link CallerIdentity#beginEpoch}): the library keeps a caller's decoded identity only
   * under a token made from an epoch it issued, so class loaders sharing the library never
   * share a token.
   *
   * @return the epoch, {@code 1..Integer.MAX_VALUE}, or 0 when none is left
   */
  static native long tokenEpoch();

  /**
   * The consent dialog's JSON interface ({@code Provider::handle_admin_json}): list pending
   * requests, approve, deny, revoke. Only for the provider app's own UI (this class is
   * package-private); never expose it to other apps. Reach it through {@link CetpRuntime#admin}.
   *
   * @return the JSON reply, or null if the library could not answer
   */
  static native String admin(String requestJson);

  /**
   * The reply to {@code method} when it is the same for every caller: {@code list_tools} and
   * {@code get_provider_info} while the provider does not gate discovery. {@link CetpRuntime}
   * keeps it, and the provider answers those calls without resolving the caller or calling into
   * the library again.
   *
   * @return the reply as {@code key, value, key, value, ...}, or null when it may depend on the
   *     caller (or the library could not answer)
   */
  static native String[] constantReply(String method);
}
