package dev.cetp.bench;

import android.content.ContentResolver;
import android.content.Context;
import android.content.pm.PackageManager;
import android.net.Uri;
import android.os.Bundle;
import android.os.SystemClock;
import dev.cetp.harness.Approvals;
import dev.cetp.harness.Callers;
import dev.cetp.harness.CetpConsumer;
import dev.cetp.harness.HostBundle;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;

@RunWith(RobolectricTestRunner.class)
public class ProbeTest {
  @Test
  public void probe() throws Throwable {
    Context ctx = RuntimeEnvironment.getApplication();
    PackageManager pm = ctx.getPackageManager();
    ContentResolver resolver = ctx.getContentResolver();
    Callers.install(pm, 10_321, "com.example.agent", "agent-cert".getBytes(StandardCharsets.UTF_8));
    Callers.setCallingUid(10_321);
    HostBundle.current().install().startProviders();
    String auth = "dev.cetp.samples.notes.tools";
    Approvals.of(new CetpConsumer(), auth, 10_321).call("get_note", "{\"id\":1}").approve(Approvals.Access.FULL);
    Uri uri = Uri.parse("content://" + auth);
    Bundle extras = new Bundle();
    extras.putString("tool_name", "notes_between");
    extras.putString("args", "{\"from\":\"2023-06-01\",\"to\":\"2023-01-01\"}");
    int n = 200_000;
    for (int w = 0; w < 3; w++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) SystemClock.elapsedRealtime();
      long t1 = System.nanoTime();
      Class<?> ci = Class.forName("dev.cetp.CallerIdentity");
      Method resolveM = ci.getDeclaredMethod("resolve", Context.class, int.class);
      MethodHandle resolve = MethodHandles.lookup().unreflect(resolveM);
      Object id = null;
      for (int i = 0; i < n; i++) id = resolve.invoke(ctx, 10_321);
      long t2 = System.nanoTime();
      Class<?> nb = Class.forName("dev.cetp.NativeBridge");
      Method callM = nb.getDeclaredMethod("call", String.class, String.class, String.class, String.class, int.class, long.class, String[].class, String[][].class);
      callM.setAccessible(true);
      MethodHandle call = MethodHandles.lookup().unreflect(callM);
      String[] pk = (String[]) ci.getField("packages").get(id);
      String[][] dg = (String[][]) ci.getField("certificateDigests").get(id);
      long tok = ci.getField("token").getLong(id);
      for (int i = 0; i < n; i++) call.invoke("execute_tool", "notes_between", "{\"from\":\"2023-06-01\",\"to\":\"2023-01-01\"}", (String) null, 10_321, tok, pk, dg);
      long t3 = System.nanoTime();
      for (int i = 0; i < n; i++) resolver.call(uri, "execute_tool", null, extras);
      long t4 = System.nanoTime();
      for (int i = 0; i < n; i++) call.invoke("list_tools", (String) null, (String) null, (String) null, 10_321, tok, pk, dg);
      long t5 = System.nanoTime();
      Method crM = nb.getDeclaredMethod("constantReply", String.class);
      crM.setAccessible(true);
      MethodHandle cr = MethodHandles.lookup().unreflect(crM);
      for (int i = 0; i < n; i++) cr.invoke("x");
      long t6 = System.nanoTime();
      for (int i = 0; i < n; i++) call.invoke("x", (String) null, (String) null, (String) null, 10_321, tok, pk, dg);
      long t7 = System.nanoTime();
      System.out.printf("constantReply(x) %.3f us; unknown method %.3f us%n", (t6 - t5) / 1e3 / n, (t7 - t6) / 1e3 / n);
      System.out.printf("elapsedRealtime %.3f us; resolve %.3f us; native reject %.3f us; full reject %.3f us; native list_tools %.3f us%n",
          (t1 - t0) / 1e3 / n, (t2 - t1) / 1e3 / n, (t3 - t2) / 1e3 / n, (t4 - t3) / 1e3 / n, (t5 - t4) / 1e3 / n);
    }
  }
}
