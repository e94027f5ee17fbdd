package dev.cetp;

/**
 * The natives behind {@link ApexPluginService}, registered by the app's Rust library next to
 * {@link NativeBridge}'s ({@code cetp_provider::export_provider!}). They answer from the provider
 * {@code NativeBridge.init} built.
 *
 * <p>R8/ProGuard must keep this class and its native methods under their names (the module's
 * {@code consumer-rules.pro} does).
 */
final class ApexBridge {
  private ApexBridge() {}

  /** {@code getMetadataJson()}. */
  static final int OP_METADATA = 0;
  /** {@code getToolsJson()}. */
  static final int OP_TOOLS = 1;
  /** {@code executeTool(toolId, argumentsJson)}. */
  static final int OP_EXECUTE = 2;
  /** {@code onActivate()}. */
  static final int OP_ACTIVATE = 3;
  /** {@code onDeactivate()}. */
  static final int OP_DEACTIVATE = 4;

  /**
   * Answers one {@code IApexPlugin} transaction in a single JNI crossing.
   *
   * @param op one of the {@code OP_*} constants
   * @param toolId {@code executeTool}'s tool id, else null
   * @param argumentsJson {@code executeTool}'s arguments, else null
   * @param callingUid {@code Binder.getCallingUid()}
   * @param packages the packages under the UID ({@link CallerIdentity#packages})
   * @param certificateDigests per package, its certificate digests ({@link
   *     CallerIdentity#certificateDigests})
   * @return what the host gets ({@code ""} for the lifecycle methods), or null if the bridge
   *     failed
   */
  static native String call(
      int op,
      String toolId,
      String argumentsJson,
      int callingUid,
      String[] packages,
      String[][] certificateDigests);

  /**
   * Whether a provider is running for the app whose files directory is {@code filesDir} (the
   * app's ContentProvider built it at process start), so the Service need not build another.
   */
  static native boolean runningFor(String filesDir);
}
