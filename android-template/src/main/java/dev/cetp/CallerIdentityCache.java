package dev.cetp;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.content.IntentFilter;
import android.content.pm.ChangedPackages;
import android.os.Build;
import android.os.SystemClock;
import android.os.UserHandle;
import android.util.Log;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.NullUnmarked;

/**
 * The process-wide cache behind {@link CallerIdentity#resolve}: a calling UID's packages and
 * certificate digests are read from the PackageManager once and reused until a package broadcast
 * says that UID changed. Every host of the template (the CETP provider, the Apex plugin service)
 * goes through the same cache.
 *
 * <p>Why this is safe, case by case, is written down in {@code docs/caller-identity.md}. In short:
 *
 * <ul>
 *   <li>The receiver is registered before the first identity is stored, so no change can fall
 *       between reading the PackageManager and listening.
 *   <li>{@code ACTION_PACKAGE_ADDED}, {@code REPLACED}, {@code REMOVED}, {@code FULLY_REMOVED},
 *       {@code CHANGED}, {@code ACTION_UID_REMOVED} and the external-storage availability
 *       broadcasts drop every entry of the app ID they name ({@code EXTRA_UID} or {@code
 *       EXTRA_CHANGED_UID_LIST}, in every user); one without a UID drops everything.
 *   <li>A resolution that raced with an invalidation is not kept: each invalidation bumps a
 *       generation counter, and an entry stored under an older generation is removed again.
 *   <li>Only complete identities are kept: at least one package, each with at least one
 *       certificate digest. A UID without visible packages is resolved on every call.
 *   <li>At most {@link #MAX_ENTRIES} UIDs are kept; beyond that an arbitrary entry goes.
 *   <li>Broadcasts can be late: Android 14+ queues them while the app is cached and delivers them
 *       when it leaves that state, so a Binder call can arrive first. A UID's first call after
 *       {@link #IDLE_CHECK_MS} without calls from that UID (and without a look since) asks
 *       {@code PackageManager.getChangedPackages} for what changed since the last look and drops
 *       the identities holding those packages; calls closer together ask nothing. The pause is
 *       counted per UID, so no other app's traffic, however steady, keeps a UID's identity from
 *       being checked again.
 * </ul>
 *
 * <p>The cache belongs to one application context: a new one (a Robolectric test, never a real
 * process) starts an empty cache with its own receiver.
 */
@NullUnmarked
final class CallerIdentityCache {
  private CallerIdentityCache() {}

  /** How many UIDs are kept at most. */
  static final int MAX_ENTRIES = 64;

  /**
   * After this long without a call the process may have been cached, with package broadcasts
   * queued: the next call first asks which packages changed (one PackageManager query).
   */
  static final long IDLE_CHECK_MS = 1_000;

  /** The most {@code getChangedPackages} queries one catch-up makes. */
  private static final int MAX_CHANGE_QUERIES = 16;

  /** Reads one identity from the platform; may return null when nothing can be said. */
  interface Loader {
    CallerIdentity load(Context context, int uid);
  }

  /** The broadcasts after which a UID's cached identity may be wrong. */
  static final String[] PACKAGE_ACTIONS = {
    Intent.ACTION_PACKAGE_ADDED,
    Intent.ACTION_PACKAGE_REPLACED,
    Intent.ACTION_PACKAGE_REMOVED,
    Intent.ACTION_PACKAGE_FULLY_REMOVED,
    Intent.ACTION_PACKAGE_CHANGED,
  };

  private static final String[] OTHER_ACTIONS = {
    Intent.ACTION_UID_REMOVED,
    Intent.ACTION_EXTERNAL_APPLICATIONS_AVAILABLE,
    Intent.ACTION_EXTERNAL_APPLICATIONS_UNAVAILABLE,
  };

  private static final Object LOCK = new Object();

  /** The cache of the current application context; replaced when that context changes. */
  private static volatile Scope current;

  /** Every identity cached for one application context, and the receiver invalidating them. */
  private static final class Scope extends BroadcastReceiver {
    final Context app;
    final ConcurrentHashMap<Integer, Entry> entries = new ConcurrentHashMap<>();
    final AtomicLong generation = new AtomicLong();

    /** False if the receiver could not be registered: nothing is cached then. */
    volatile boolean listening;

    /** {@code SystemClock.elapsedRealtime()} when the last look at the changes began. */
    volatile long lastCatchUp = Long.MIN_VALUE / 2;

    /** The sequence number of the last {@code getChangedPackages} answer; -1 before the first. */
    private int changeSequence = -1;

    Scope(Context app) {
      this.app = app;
    }

    @Override
    public void onReceive(Context context, Intent intent) {
      int uid = intent.getIntExtra(Intent.EXTRA_UID, -1);
      int[] uids = intent.getIntArrayExtra(Intent.EXTRA_CHANGED_UID_LIST);
      if (uid >= 0) {
        invalidate(uid);
      } else if (uids != null) {
        for (int each : uids) {
          invalidate(each);
        }
      } else {
        invalidateAll();
      }
    }

    /** Drops every entry with the app ID of {@code uid}, in any user. */
    void invalidate(int uid) {
      generation.incrementAndGet();
      int appId = UserHandle.getAppId(uid);
      entries.keySet().removeIf(cached -> UserHandle.getAppId(cached) == appId);
    }

    void invalidateAll() {
      generation.incrementAndGet();
      entries.clear();
    }

    /** Drops every entry holding {@code packageName}. */
    void invalidatePackage(String packageName) {
      generation.incrementAndGet();
      entries.values().removeIf(entry -> holds(entry.identity, packageName));
    }

    /**
     * Catches up with package changes the broadcasts may not have brought yet: asks the
     * PackageManager what changed since the last look (API 26+) and drops those packages'
     * identities. The first look only learns where the sequence stands: every identity cached
     * after it was read after it.
     */
    synchronized void catchUp(long now) {
      if (now - lastCatchUp < IDLE_CHECK_MS && lastCatchUp != Long.MIN_VALUE / 2) {
        // Another UID's catch-up just looked (while this one waited for the lock, or moments
        // ago): what it saw covers this UID too.
        return;
      }
      lastCatchUp = now;
      if (Build.VERSION.SDK_INT < Build.VERSION_CODES.O) {
        return;
      }
      boolean first = changeSequence < 0;
      int sequence = Math.max(changeSequence, 0);
      // One answer normally covers every change since `sequence`; ask until none is left (a
      // bounded number of times), in case an answer covers only part of them.
      for (int asked = 0; asked < MAX_CHANGE_QUERIES; asked++) {
        ChangedPackages changed;
        try {
          changed = app.getPackageManager().getChangedPackages(sequence);
        } catch (RuntimeException e) {
          // Without an answer, keep nothing that might be stale.
          invalidateAll();
          break;
        }
        if (changed == null || changed.getSequenceNumber() <= sequence) {
          break;
        }
        if (!first) {
          for (String name : changed.getPackageNames()) {
            invalidatePackage(name);
          }
        }
        sequence = changed.getSequenceNumber();
      }
      changeSequence = sequence;
    }
  }

  /** A cached identity and when its UID last called. */
  private static final class Entry {
    final CallerIdentity identity;

    /** {@code SystemClock.elapsedRealtime()} of the UID's last lookup. */
    volatile long lastLookup;

    Entry(CallerIdentity identity, long now) {
      this.identity = identity;
      this.lastLookup = now;
    }
  }

  private static boolean holds(CallerIdentity identity, String packageName) {
    for (String name : identity.packages) {
      if (name.equals(packageName)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The identity of {@code uid}: from the cache, or read through {@code loader} and cached when
   * complete.
   */
  static CallerIdentity get(Context context, int uid, Loader loader) {
    Scope scope = scope(context);
    long now = SystemClock.elapsedRealtime();
    Entry hit = scope.entries.get(uid);
    if (hit != null) {
      long last = Math.max(hit.lastLookup, scope.lastCatchUp);
      hit.lastLookup = now;
      if (now - last < IDLE_CHECK_MS) {
        return hit.identity;
      }
      // This UID has been quiet (the process may have been cached since, with broadcasts
      // queued): look at what changed before answering with what it was.
      scope.catchUp(now);
      hit = scope.entries.get(uid);
      if (hit != null) {
        return hit.identity;
      }
    }
    long generation = scope.generation.get();
    CallerIdentity fresh = loader.load(context, uid);
    if (fresh == null || !scope.listening || !fresh.isComplete()) {
      return fresh;
    }
    if (scope.entries.size() >= MAX_ENTRIES) {
      Iterator<Integer> any = scope.entries.keySet().iterator();
      if (any.hasNext()) {
        any.next();
        any.remove();
      }
    }
    Entry entry = new Entry(fresh, now);
    scope.entries.put(uid, entry);
    if (scope.generation.get() != generation) {
      // A package of some UID changed while this one was read: the read may be older than the
      // change, so it must not stay.
      scope.entries.remove(uid, entry);
    }
    return fresh;
  }

  /**
   * Registers the invalidating receiver for the application of {@code context} (idempotent) and
   * learns where the package-change sequence stands. {@link CetpRuntime} calls it when it starts,
   * before the first call is answered; {@link #get} registers too, so no entry is ever stored
   * before the receiver listens.
   */
  static void start(Context context) {
    scope(context).catchUp(SystemClock.elapsedRealtime());
  }

  /** How many UIDs are cached now (for tests and diagnostics). */
  static int size(Context context) {
    Scope scope = current;
    return scope != null && scope.app == application(context) ? scope.entries.size() : 0;
  }

  private static Scope scope(Context context) {
    Context app = application(context);
    Scope scope = current;
    if (scope != null && scope.app == app) {
      return scope;
    }
    synchronized (LOCK) {
      scope = current;
      if (scope != null && scope.app == app) {
        return scope;
      }
      Scope fresh = new Scope(app);
      fresh.listening = register(app, fresh);
      current = fresh;
      return fresh;
    }
  }

  private static Context application(Context context) {
    Context app = context.getApplicationContext();
    return app != null ? app : context;
  }

  private static boolean register(Context app, BroadcastReceiver receiver) {
    IntentFilter packages = new IntentFilter();
    for (String action : PACKAGE_ACTIONS) {
      packages.addAction(action);
    }
    packages.addDataScheme("package");
    IntentFilter others = new IntentFilter();
    for (String action : OTHER_ACTIONS) {
      others.addAction(action);
    }
    try {
      registerOne(app, receiver, packages);
      registerOne(app, receiver, others);
      return true;
    } catch (RuntimeException e) {
      // Without the receiver nothing may be cached: every call reads the PackageManager.
      Log.w(CetpRuntime.TAG, "CETP: caller identities will not be cached", e);
      try {
        app.unregisterReceiver(receiver);
      } catch (RuntimeException ignored) {
        // It was not registered.
      }
      return false;
    }
  }

  private static void registerOne(Context app, BroadcastReceiver receiver, IntentFilter filter) {
    // These are protected broadcasts only the system sends: NOT_EXPORTED keeps other apps out
    // and still receives them (required to be explicit when targeting API 34).
    if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.TIRAMISU) {
      app.registerReceiver(receiver, filter, Context.RECEIVER_NOT_EXPORTED);
    } else {
      app.registerReceiver(receiver, filter);
    }
  }
}
