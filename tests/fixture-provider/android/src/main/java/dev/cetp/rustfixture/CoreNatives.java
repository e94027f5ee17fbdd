package dev.cetp.rustfixture;

/**
 * Natives of the fixture library's own "core", registered by the library's own {@code
 * JNI_OnLoad} before it hands over to the SDK's entry ({@code cetp_provider::jni::on_load}).
 */
public final class CoreNatives {
  private CoreNatives() {}

  /** How often the library's own {@code JNI_OnLoad} ran. */
  public static native int loads();

  /** The JNI version the SDK's entry returned to that {@code JNI_OnLoad}. */
  public static native int sdkVersion();
}
