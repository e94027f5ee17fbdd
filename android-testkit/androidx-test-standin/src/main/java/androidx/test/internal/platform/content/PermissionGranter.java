package androidx.test.internal.platform.content;

/** Implemented by Robolectric's LocalPermissionGranter. */
public interface PermissionGranter {
  void addPermissions(String... permissions);

  void requestPermissions();
}
