package dev.cetp.testkit;

/** Which {@code ContentResolver.call} overload an agent calls the provider with. */
public enum CallForm {
  /** {@code call(String authority, String method, String arg, Bundle extras)} (API 29+). */
  AUTHORITY,
  /** {@code call(Uri.parse("content://" + authority), method, arg, extras)}, as ClawSeed calls. */
  URI
}
