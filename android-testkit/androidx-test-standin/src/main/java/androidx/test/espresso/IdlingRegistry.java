package androidx.test.espresso;

import android.os.Looper;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Process-wide set of idling resources and idle-tracked loopers. Robolectric's LocalUiController
 * reads {@link #getResources} and {@link #getLoopers} when it idles the main thread.
 */
public final class IdlingRegistry {
  private static final IdlingRegistry INSTANCE = new IdlingRegistry();

  private final Set<IdlingResource> resources = new LinkedHashSet<>();
  private final Set<Looper> loopers = new LinkedHashSet<>();

  private IdlingRegistry() {}

  public static IdlingRegistry getInstance() {
    return INSTANCE;
  }

  /** @return true if every resource was newly added */
  public synchronized boolean register(IdlingResource... idlingResources) {
    boolean all = true;
    for (IdlingResource r : idlingResources) {
      if (r == null) {
        throw new NullPointerException("idlingResource");
      }
      all &= resources.add(r);
    }
    return all;
  }

  /** @return true if every resource was registered before */
  public synchronized boolean unregister(IdlingResource... idlingResources) {
    boolean all = true;
    for (IdlingResource r : idlingResources) {
      all &= resources.remove(r);
    }
    return all;
  }

  public synchronized void registerLooperAsIdlingResource(Looper looper) {
    if (looper == null) {
      throw new NullPointerException("looper");
    }
    if (looper == Looper.getMainLooper()) {
      throw new IllegalArgumentException("Not intended for use with main looper!");
    }
    loopers.add(looper);
  }

  public synchronized boolean unregisterLooperAsIdlingResource(Looper looper) {
    return loopers.remove(looper);
  }

  public synchronized Collection<IdlingResource> getResources() {
    return new ArrayList<>(resources);
  }

  public synchronized Collection<Looper> getLoopers() {
    return new ArrayList<>(loopers);
  }
}
