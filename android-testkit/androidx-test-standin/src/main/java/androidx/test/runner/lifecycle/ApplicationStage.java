package androidx.test.runner.lifecycle;

/** Lifecycle stages of the Application signalled around {@code Application.onCreate}. */
public enum ApplicationStage {
  PRE_ON_CREATE,
  CREATED
}
