package androidx.test.internal.runner.intent;

import android.content.Intent;
import androidx.test.runner.intent.IntentCallback;
import androidx.test.runner.intent.IntentMonitor;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Fans out Intents to callbacks. RoboMonitoringInstrumentation calls {@link #signalIntent} from
 * {@code execStartActivity}. Each callback gets its own copy, so one cannot alter what another sees.
 */
public final class IntentMonitorImpl implements IntentMonitor {
  private final List<WeakReference<IntentCallback>> callbacks = new ArrayList<>();

  @Override
  public void addIntentCallback(IntentCallback callback) {
    if (callback == null) {
      throw new NullPointerException("callback");
    }
    synchronized (callbacks) {
      for (WeakReference<IntentCallback> ref : callbacks) {
        if (ref.get() == callback) {
          return;
        }
      }
      callbacks.add(new WeakReference<>(callback));
    }
  }

  @Override
  public void removeIntentCallback(IntentCallback callback) {
    synchronized (callbacks) {
      callbacks.removeIf(ref -> ref.get() == null || ref.get() == callback);
    }
  }

  public void signalIntent(Intent intent) {
    List<IntentCallback> live = new ArrayList<>();
    synchronized (callbacks) {
      Iterator<WeakReference<IntentCallback>> it = callbacks.iterator();
      while (it.hasNext()) {
        IntentCallback cb = it.next().get();
        if (cb == null) {
          it.remove();
        } else {
          live.add(cb);
        }
      }
    }
    for (IntentCallback cb : live) {
      cb.onIntentSent(new Intent(intent));
    }
  }
}
