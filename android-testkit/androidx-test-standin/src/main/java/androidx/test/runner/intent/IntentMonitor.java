package androidx.test.runner.intent;

/** Registration side of Intent monitoring. */
public interface IntentMonitor {
  void addIntentCallback(IntentCallback callback);

  void removeIntentCallback(IntentCallback callback);
}
