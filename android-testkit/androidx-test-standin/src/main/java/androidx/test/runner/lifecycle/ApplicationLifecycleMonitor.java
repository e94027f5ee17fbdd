package androidx.test.runner.lifecycle;

/** Registration side of Application lifecycle tracking. */
public interface ApplicationLifecycleMonitor {
  void addLifecycleCallback(ApplicationLifecycleCallback callback);

  void removeLifecycleCallback(ApplicationLifecycleCallback callback);
}
