package dev.cetp.testkit.internal;

import android.os.Looper;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * Watches the consent screens' way to the native library, the seam {@code CetpAdmin.bridge}:
 * every admin request the screens send, the thread that sent it, and (for tests of a decision
 * still being saved) a gate that holds requests of one operation on the worker thread until
 * {@link #release()}. {@link #close()} puts the real bridge back.
 */
public final class AdminBridgeSpy implements AutoCloseable {
  /** One request as it entered the bridge. */
  public static final class Entry {
    /** The admin operation ({@code state}, {@code approve}, ...). */
    public final String op;
    /** The name of the thread that sent it. */
    public final String thread;
    /** Whether that was the main thread. */
    public final boolean mainThread;

    Entry(String op, String thread, boolean mainThread) {
      this.op = op;
      this.thread = thread;
      this.mainThread = mainThread;
    }

    @Override
    public String toString() {
      return op + " on " + thread;
    }
  }

  private final Field field;
  private final Object original;
  private final List<Entry> entries = new ArrayList<>();
  private volatile String heldOp;
  private volatile CountDownLatch gate = new CountDownLatch(0);

  private AdminBridgeSpy(Field field, Object original) {
    this.field = field;
    this.original = original;
  }

  /** Wraps the screens' bridge. */
  public static AdminBridgeSpy install() throws ReflectiveOperationException {
    Class<?> admin = Class.forName("dev.cetp.CetpAdmin");
    Class<?> bridge = Class.forName("dev.cetp.CetpAdmin$Bridge");
    Field field = admin.getDeclaredField("bridge");
    field.setAccessible(true);
    Object original = field.get(null);
    Method call = bridge.getDeclaredMethod("admin", String.class);
    call.setAccessible(true);
    AdminBridgeSpy spy = new AdminBridgeSpy(field, original);
    Object wrapper =
        Proxy.newProxyInstance(
            bridge.getClassLoader(),
            new Class<?>[] {bridge},
            (proxy, method, args) -> {
              if (!method.getName().equals("admin")) {
                return method.invoke(original, args);
              }
              String op = op((String) args[0]);
              spy.record(op);
              if (op.equals(spy.heldOp)) {
                spy.gate.await();
              }
              try {
                return call.invoke(original, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
    field.set(null, wrapper);
    return spy;
  }

  private static String op(String json) {
    try {
      return new JSONObject(json).optString(Wire.ADMIN_OP);
    } catch (JSONException e) {
      return "?";
    }
  }

  private synchronized void record(String op) {
    entries.add(
        new Entry(op, Thread.currentThread().getName(), Looper.myLooper() == Looper.getMainLooper()));
  }

  /** Every request so far, in order. */
  public synchronized List<Entry> entries() {
    return new ArrayList<>(entries);
  }

  /** The requests sent from the main thread (there must be none). */
  public synchronized List<Entry> onTheMainThread() {
    List<Entry> out = new ArrayList<>();
    for (Entry e : entries) {
      if (e.mainThread) {
        out.add(e);
      }
    }
    return out;
  }

  /** From now on, requests of {@code op} wait on the worker thread until {@link #release()}. */
  public void hold(String op) {
    gate = new CountDownLatch(1);
    heldOp = op;
  }

  /** Lets held requests through. */
  public void release() {
    heldOp = null;
    gate.countDown();
  }

  @Override
  public void close() throws IllegalAccessException {
    release();
    field.set(null, original);
  }
}
