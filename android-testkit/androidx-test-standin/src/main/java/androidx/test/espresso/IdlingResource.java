package androidx.test.espresso;

/** A resource Robolectric's LocalUiController waits on before it considers the app idle. */
public interface IdlingResource {
  String getName();

  boolean isIdleNow();

  void registerIdleTransitionCallback(ResourceCallback callback);

  /** Told when the resource becomes idle. */
  interface ResourceCallback {
    void onTransitionToIdle();
  }
}
