package dev.cetp.e2e;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Run by {@link JniCheckTest} in a child JVM with {@code -Xcheck:jni}: drives every native of
 * {@code dev.cetp.NativeBridge} and {@code dev.cetp.ApexBridge} (the template's class, from the bundle's app.jar) directly, on
 * many threads, with nulls, odd strings and every reply shape, so that the JVM's JNI checker
 * sees every path of the Rust bridge. Prints {@code JNI-CHECK OK <calls>} and exits 0 when every
 * reply was as expected; otherwise prints the mismatch and exits 1.
 */
public final class JniCheckMain {
  private static Method load;
  private static Method init;
  private static Method call;
  private static Method admin;
  private static Method apex;
  private static Method runningFor;
  private static Method constantReply;
  private static int calls;

  public static void main(String[] args) throws Exception {
    Class<?> bridge = Class.forName("dev.cetp.NativeBridge");
    load = declared(bridge, "load", String.class);
    init = declared(bridge, "init", String.class, String.class, long.class, String.class);
    call =
        declared(
            bridge,
            "call",
            String.class,
            String.class,
            String.class,
            String.class,
            int.class,
            String[].class,
            String[][].class);
    admin = declared(bridge, "admin", String.class);
    // The Apex plugin Service's natives, registered by the same JNI_OnLoad.
    Class<?> apexBridge = Class.forName("dev.cetp.ApexBridge");
    apex =
        declared(
            apexBridge,
            "call",
            int.class,
            String.class,
            String.class,
            int.class,
            String[].class,
            String[][].class);
    runningFor = declared(apexBridge, "runningFor", String.class);
    constantReply = declared(bridge, "constantReply", String.class);

    expect("load", null, load.invoke(null, args[0]));
    expectCode("before init", "INTERNAL_ERROR", exec("list_tools", null, null, null));
    expectContains("admin before init", "not_running", (String) admin.invoke(null, "{\"op\":\"state\"}"));
    expectContains("apex before init", "Error: INTERNAL_ERROR: ", apex(2, "rustfixture__echo", "{}"));
    expect("apex metadata before init", "{}", apex(0, null, null));
    expect("running before init", false, runningFor.invoke(null, args[1]));
    expect("constantReply before init", null, constantReply.invoke(null, "list_tools"));
    expect("init", null, init.invoke(null, args[1], "dev.cetp.rustfixture", 1L, "1.0"));

    // The kept discovery replies (the fixture's discovery is open) equal a call's.
    for (String method : new String[] {"list_tools", "get_provider_info"}) {
      String[] kept = (String[]) constantReply.invoke(null, method);
      expectSuccess("constantReply " + method, kept);
      expect("constantReply " + method, java.util.Arrays.asList(exec(method, null, null, null)), java.util.Arrays.asList(kept));
    }
    expect("constantReply execute_tool", null, constantReply.invoke(null, "execute_tool"));
    expect("constantReply null", null, constantReply.invoke(null, (Object) null));
    expect("constantReply odd", null, constantReply.invoke(null, "\uD800 \u0000"));

    // Every reply shape: 2 pairs, 3 pairs, 5 pairs; nulls everywhere.
    expectSuccess("list_tools", exec("list_tools", null, null, null));
    expectSuccess("get_provider_info", exec("get_provider_info", null, null, null));
    expectCode("null method", "TOOL_NOT_FOUND", (String[]) call.invoke(null, null, null, null, null, -1, null, null));
    expectCode("no tool name", "INVALID_ARGS", exec("execute_tool", null, "{}", null));
    expectCode("auth required", "AUTH_REQUIRED", exec("execute_tool", "fail", "{\"code\":\"AUTH_REQUIRED\"}", "r"));
    expectCode("panic", "INTERNAL_ERROR", exec("execute_tool", "boom", "{\"message\":\"m\"}", null));
    expectCode("oversized", "INTERNAL_ERROR", exec("execute_tool", "oversized", "{\"kib\":300}", null));
    // Large but within the limit, which counts UTF-16 wire bytes: 240 KiB on the wire.
    String[] large = exec("execute_tool", "oversized", "{\"kib\":120}", null);
    expectSuccess("large", large);
    // Odd strings: astral plane, lone surrogates, NUL, in every string parameter.
    String odd = "\uD800 🎉 \u0000 \uDFFF 𝄞";
    // Inside JSON text the NUL must be escaped; the surrogates stay raw.
    String oddJson = "\uD800 🎉 \\u0000 \uDFFF 𝄞";
    String[] echoed = exec("execute_tool", "echo", "{\"text\":\"" + oddJson + "\"}", odd);
    expectSuccess("echo odd", echoed);
    expectContains("echo odd", "\uFFFD 🎉 \\u0000 \uFFFD 𝄞", echoed[3]);
    expectCode("odd method", "TOOL_NOT_FOUND", (String[]) call.invoke(null, odd, odd, odd, odd, 7, new String[] {odd, null}, new String[][] {{odd}, null}));
    String[] who =
        (String[])
            call.invoke(
                null,
                "execute_tool",
                "whoami",
                null,
                odd,
                10123,
                new String[] {"com.a", "com.b"},
                new String[][] {{"AB", "cd"}});
    expectContains("whoami", "\"uid\":10123", who[3]);
    expectContains("whoami", "[\"ab\",\"cd\"]", who[3]);
    expectContains("whoami", "\"request_id\":\"\uFFFD 🎉 \\u0000 \uFFFD 𝄞\"", who[3]);
    expectContains("admin", "\"ok\":true", (String) admin.invoke(null, "{\"op\":\"state\"}"));
    expectContains("admin bad json", "bad_request", (String) admin.invoke(null, "{"));
    expectContains("admin null", "bad_request", (String) admin.invoke(null, (Object) null));

    // The Apex natives: every operation, nulls, odd strings, an unknown operation.
    expect("running for", true, runningFor.invoke(null, args[1]));
    expect("running for another dir", false, runningFor.invoke(null, args[1] + "-other"));
    expect("running for null", false, runningFor.invoke(null, (Object) null));
    expectContains("apex metadata", "\"id\":\"dev.cetp.rustfixture\"", apex(0, null, null));
    expectContains("apex tools", "\"id\":\"rustfixture__echo\"", apex(1, odd, odd));
    String apexEcho = apex(2, "rustfixture__echo", "{\"text\":\"" + oddJson + "\"}");
    expectContains("apex echo odd", "\uFFFD 🎉 \\u0000 \uFFFD 𝄞", apexEcho);
    expectContains("apex unknown id", "Error: TOOL_NOT_FOUND: ", apex(2, odd, odd));
    expectContains("apex nulls", "Error: TOOL_NOT_FOUND: ", apex(2, null, null));
    expectContains("apex panic", "Error: INTERNAL_ERROR: ", apex(2, "rustfixture__boom", "{\"message\":\"m\"}"));
    expectContains("apex oversized", "Error: INTERNAL_ERROR: ", apex(2, "rustfixture__oversized", "{\"kib\":300}"));
    expect("apex activate", "", apex(3, null, null));
    expect("apex deactivate (its hook panics)", "", apex(4, null, null));
    expect("apex unknown op", "", apex(99, odd, odd));
    count();
    String apexWho =
        (String)
            apex.invoke(
                null, 2, "rustfixture__whoami", "{}", 10124, new String[] {"com.h", null}, null);
    expectContains("apex whoami", "\"uid\":10124", apexWho);

    // 16 threads at once, thousands of calls: local references must not pile up.
    int threads = 16;
    int perThread = 300;
    CyclicBarrier barrier = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<Integer>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      final int thread = t;
      futures.add(
          pool.submit(
              () -> {
                barrier.await();
                for (int i = 0; i < perThread; i++) {
                  String text = "t" + thread + " i" + i + " 🎉";
                  String[] r = exec("execute_tool", "echo", "{\"text\":\"" + text + "\"}", null);
                  expectContains("concurrent echo", "\"text\":\"" + text + "\"", r[3]);
                  if (i % 10 == 0) {
                    expectCode("concurrent panic", "INTERNAL_ERROR", exec("execute_tool", "boom", "{\"message\":\"x\"}", null));
                    expectContains("concurrent apex echo", "\"text\":\"" + text + "\"",
                        apex(2, "rustfixture__echo", "{\"text\":\"" + text + "\"}"));
                  }
                }
                return perThread;
              }));
    }
    for (Future<Integer> f : futures) {
      f.get(5, TimeUnit.MINUTES); // hang guard only
    }
    pool.shutdown();
    // Re-initialising (a new provider instance in the same process) keeps answering.
    expect("re-init", null, init.invoke(null, args[1], "dev.cetp.rustfixture", 1L, "1.0"));
    expectSuccess("after re-init", exec("list_tools", null, null, null));
    System.out.println("JNI-CHECK OK " + calls);
    System.exit(0);
  }

  private static synchronized void count() {
    calls++;
  }

  private static String[] exec(String method, String tool, String args, String requestId)
      throws Exception {
    count();
    return (String[])
        call.invoke(
            null,
            method,
            tool,
            args,
            requestId,
            10001,
            new String[] {"com.example.agent"},
            new String[][] {{}});
  }

  /** One Apex transaction from caller uid 10001, package com.example.agent. */
  private static String apex(int op, String toolId, String arguments) throws Exception {
    count();
    return (String)
        apex.invoke(
            null, op, toolId, arguments, 10001, new String[] {"com.example.agent"}, new String[][] {{}});
  }

  private static Method declared(Class<?> c, String name, Class<?>... params) throws Exception {
    Method m = c.getDeclaredMethod(name, params);
    m.setAccessible(true);
    return m;
  }

  private static void expectSuccess(String what, String[] reply) {
    if (reply == null || reply.length != 4 || !"status".equals(reply[0]) || !"success".equals(reply[1]) || !"data".equals(reply[2])) {
      fail(what + ": expected success, got " + Arrays.toString(reply));
    }
  }

  private static void expectCode(String what, String code, String[] reply) {
    if (reply == null
        || reply.length < 6
        || reply.length % 2 != 0
        || !"error".equals(reply[1])
        || !"error_code".equals(reply[2])
        || !code.equals(reply[3])
        || !"error_message".equals(reply[4])
        || reply[5].isEmpty()) {
      fail(what + ": expected " + code + ", got " + Arrays.toString(reply));
    }
  }

  private static void expectContains(String what, String needle, String text) {
    if (text == null || !text.contains(needle)) {
      fail(what + ": expected to contain " + needle + ", got " + text);
    }
  }

  private static void expect(String what, Object expected, Object actual) {
    if (expected == null ? actual != null : !expected.equals(actual)) {
      fail(what + ": expected " + expected + ", got " + actual);
    }
  }

  private static void fail(String message) {
    System.out.println("JNI-CHECK FAILED " + message);
    System.out.flush();
    Runtime.getRuntime().halt(1);
  }

  private JniCheckMain() {}
}
