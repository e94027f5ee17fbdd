package dev.cetp;

import org.jspecify.annotations.NullUnmarked;

/**
 * The natives behind {@link ApexPluginService}, one per {@code IApexPlugin} method, registered
 * by the app's Rust library next to {@link NativeBridge}'s ({@code
 * cetp_provider::export_provider!}). Each takes the caller as {@link CallerIdentity} resolved
 * it (UID, token, packages, certificate digests) and returns null when the library could not
 * answer (the Service then replies itself).
 *
 * <p>R8/ProGuard must keep this class and its native methods under their names (the module's
 * {@code consumer-rules.pro} does).
 */
@NullUnmarked
final class ApexBridge {
  private ApexBridge() {}

  /** {@code getMetadataJson()}. */
  static native String metadataJson(
      int callingUid, long callerToken, String[] packages, String[][] certificateDigests);

  /** {@code getToolsJson()}. */
  static native String toolsJson(
      int callingUid, long callerToken, String[] packages, String[][] certificateDigests);

  /**
   * {@code executeTool(toolId, argumentsJson)}.
   *
   * @return {@code {text, errorCode}}: what the host gets, and the CETP error code of a failure
   *     ({@link Wire}'s {@code CODE_*}; null for a success)
   */
  static native String[] executeTool(
      String toolId,
      String argumentsJson,
      int callingUid,
      long callerToken,
      String[] packages,
      String[][] certificateDigests);

  /** {@code onActivate()}. */
  static native void onActivate(
      int callingUid, long callerToken, String[] packages, String[][] certificateDigests);

  /** {@code onDeactivate()}. */
  static native void onDeactivate(
      int callingUid, long callerToken, String[] packages, String[][] certificateDigests);

  /**
   * {@code Service.onUnbind}: the Service's last binding closed (every host unbound or died), so
   * no host has a binding open any more. No caller: the platform names none.
   */
  static native void onUnbind();
}
