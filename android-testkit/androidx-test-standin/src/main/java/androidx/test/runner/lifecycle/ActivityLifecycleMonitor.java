package androidx.test.runner.lifecycle;

import android.app.Activity;
import java.util.Collection;

/** Read side of the Activity lifecycle tracking (used by Robolectric's controllers and shadows). */
public interface ActivityLifecycleMonitor {
  void addLifecycleCallback(ActivityLifecycleCallback callback);

  void removeLifecycleCallback(ActivityLifecycleCallback callback);

  /** @throws IllegalArgumentException if the activity is not tracked */
  Stage getLifecycleStageOf(Activity activity);

  Collection<Activity> getActivitiesInStage(Stage stage);
}
