package androidx.test.internal.platform;

/** Implemented by Robolectric's RobolectricThreadChecker. */
public interface ThreadChecker {
  void checkMainThread();

  void checkNotMainThread();
}
