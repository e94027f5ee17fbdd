package androidx.test.internal.platform.os;

import android.view.View;

/** Implemented by Robolectric's LocalControlledLooper. */
public interface ControlledLooper {
  void drainMainThreadUntilIdle();

  void simulateWindowFocus(View decorView);
}
