package androidx.test.runner.intent;

import android.app.Instrumentation.ActivityResult;
import android.content.Intent;

/** Supplies a canned ActivityResult for an Intent, or {@code null} to let it through. */
public interface IntentStubber {
  ActivityResult getActivityResultForIntent(Intent intent);
}
