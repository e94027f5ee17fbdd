package androidx.test.runner.lifecycle;

/** Lifecycle stages of an Activity, in the order the real androidx.test declares them. */
public enum Stage {
  PRE_ON_CREATE,
  CREATED,
  STARTED,
  RESUMED,
  PAUSED,
  STOPPED,
  RESTARTED,
  DESTROYED
}
