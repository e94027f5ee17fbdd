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
  private static Method init;
  private static Method call;
  private static Method admin;
  private static Method constantReply;
  private static Method metadataJson;
  private static Method toolsJson;
  private static Method executeTool;
  private static Method onActivate;
  private static Method onDeactivate;
  private static Method onUnbind;
  private static int calls;

  public static void main(String[] args) throws Exception {
    Class<?> bridge = Class.forName("dev.cetp.NativeBridge");
    init =
        declared(bridge, "init", String.class, String.class, String.class, long.class, String.class);
    call =
        declared(
            bridge,
            "call",
            String.class,
            String.class,
            String.class,
            String.class,
            int.class,
            long.class,
            String[].class,
            String[][].class);
    admin = declared(bridge, "admin", String.class);
    constantReply = declared(bridge, "constantReply", String.class);
    Method tokenEpoch = declared(bridge, "tokenEpoch");
    // The Apex plugin Service's natives, one per IApexPlugin method, registered by the same
    // JNI_OnLoad.
    Class<?> apexBridge = Class.forName("dev.cetp.ApexBridge");
    Class<?>[] caller = {int.class, long.class, String[].class, String[][].class};
    metadataJson = declared(apexBridge, "metadataJson", caller);
    toolsJson = declared(apexBridge, "toolsJson", caller);
    executeTool =
        declared(
            apexBridge,
            "executeTool",
            String.class,
            String.class,
            int.class,
            long.class,
            String[].class,
            String[][].class);
    onActivate = declared(apexBridge, "onActivate", caller);
    onDeactivate = declared(apexBridge, "onDeactivate", caller);
    onUnbind = declared(apexBridge, "onUnbind");

    // What CetpRuntime does on the first call: load the library (JNI_OnLoad registers the
    // natives), then start it. Before the start every native answers null.
    System.loadLibrary(args[0]);
    expect("call before init", null, exec("list_tools", null, null, null));
    expect("admin before init", null, admin.invoke(null, "{\"op\":\"state\"}"));
    expect("apex metadata before init", null, apexCall(metadataJson));
    expect("apex execute before init", null, apexExecute("rustfixture__echo", "{}"));
    expect("constantReply before init", null, constantReply.invoke(null, "list_tools"));
    apexCall(onActivate); // nothing to do, and nothing breaks
    onUnbind.invoke(null); // likewise
    expect("init", null, init.invoke(null, args[1], args[1] + "-nb", "dev.cetp.rustfixture", 1L, "1.0"));

    // The kept discovery replies (the fixture's discovery is open) equal a call's.
    for (String method : new String[] {"list_tools", "get_provider_info"}) {
      String[] kept = (String[]) constantReply.invoke(null, method);
      expectSuccess("constantReply " + method, kept);
      expect("constantReply " + method, Arrays.asList(exec(method, null, null, null)), Arrays.asList(kept));
    }
    expect("constantReply execute_tool", null, constantReply.invoke(null, "execute_tool"));
    expect("constantReply null", null, constantReply.invoke(null, (Object) null));
    expect("constantReply odd", null, constantReply.invoke(null, "\uD800 \u0000"));

    // Every reply shape: 2 pairs, 3 pairs, 5 pairs; nulls everywhere.
    expectSuccess("list_tools", exec("list_tools", null, null, null));
    expectSuccess("get_provider_info", exec("get_provider_info", null, null, null));
    expectCode("null method", "TOOL_NOT_FOUND", (String[]) call.invoke(null, null, null, null, null, -1, 0L, null, null));
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
    expectCode("odd method", "TOOL_NOT_FOUND", (String[]) call.invoke(null, odd, odd, odd, odd, 7, 0L, new String[] {odd, null}, new String[][] {{odd}, null}));
    String[] who = whoami(odd, 10123, 0L, new String[] {"com.a", "com.b"}, new String[][] {{"AB", "cd"}});
    expectContains("whoami", "\"uid\":10123", who[3]);
    expectContains("whoami", "[\"ab\",\"cd\"]", who[3]);
    expectContains("whoami", "\"request_id\":\"\uFFFD 🎉 \\u0000 \uFFFD 𝄞\"", who[3]);
    // A token names one identity: its arrays are read once, then known by the token alone,
    // as long as its epoch is one the library handed out and the UID is the one it was read with.
    long epoch = (long) tokenEpoch.invoke(null);
    long nextEpoch = (long) tokenEpoch.invoke(null);
    expect("epochs are new", true, epoch >= 1 && nextEpoch > epoch && nextEpoch <= Integer.MAX_VALUE);
    long token = epoch << 32 | 77;
    String[] first = whoami(null, 10125, token, new String[] {"com.first"}, new String[][] {{"aa"}});
    String[] again = whoami(null, 10125, token, new String[] {"com.changed"}, null);
    expectContains("token first", "com.first", first[3]);
    expectContains("token again", "com.first", again[3]);
    String[] other = whoami(null, 10125, token + 1, new String[] {"com.changed"}, new String[][] {{"bb"}});
    expectContains("new token", "com.changed", other[3]);
    // The same token with another UID (a second class loader counting from the same number):
    // read anew, never answered with the first caller's identity.
    String[] otherUid = whoami(null, 10126, token, new String[] {"com.intruder"}, new String[][] {{"cc"}});
    expectContains("token of another UID", "\"uid\":10126", otherUid[3]);
    expectContains("token of another UID", "com.intruder", otherUid[3]);
    // A token from an epoch never handed out (what a copy of the template without one counts:
    // 1, 2, 3...) is read every time.
    String[] unissued = whoami(null, 10127, 3L, new String[] {"com.before"}, new String[][] {{"dd"}});
    String[] unissuedAgain = whoami(null, 10127, 3L, new String[] {"com.after"}, new String[][] {{"ee"}});
    expectContains("unissued epoch", "com.before", unissued[3]);
    expectContains("unissued epoch is never kept", "com.after", unissuedAgain[3]);
    String[] untokened = whoami(null, 10125, 0L, new String[] {"com.zero"}, null);
    expectContains("token 0 is never kept", "com.zero", untokened[3]);
    expectContains("admin", "\"ok\":true", (String) admin.invoke(null, "{\"op\":\"state\"}"));
    expectContains("admin connections", "\"connections\":[", (String) admin.invoke(null, "{\"op\":\"state\"}"));
    expectContains("admin bad json", "bad_request", (String) admin.invoke(null, "{"));
    expectContains("admin null", "bad_request", (String) admin.invoke(null, (Object) null));

    // The Apex natives: every method, nulls, odd strings.
    expectContains("apex metadata", "\"id\":\"dev.cetp.rustfixture\"", apexCall(metadataJson));
    expectContains("apex tools", "\"id\":\"rustfixture__echo\"", apexCall(toolsJson));
    String[] apexEcho = apexExecute("rustfixture__echo", "{\"text\":\"" + oddJson + "\"}");
    expectContains("apex echo odd", "\uFFFD 🎉 \\u0000 \uFFFD 𝄞", apexEcho[0]);
    expect("apex echo code", null, apexEcho[1]);
    expectApexCode("apex unknown id", "TOOL_NOT_FOUND", apexExecute(odd, odd));
    expectApexCode("apex nulls", "TOOL_NOT_FOUND", apexExecute(null, null));
    expectApexCode("apex panic", "INTERNAL_ERROR", apexExecute("rustfixture__boom", "{\"message\":\"m\"}"));
    expectApexCode("apex oversized", "INTERNAL_ERROR", apexExecute("rustfixture__oversized", "{\"kib\":300}"));
    expectApexCode("apex auth required", "AUTH_REQUIRED", apexExecute("rustfixture__fail", "{\"code\":\"AUTH_REQUIRED\"}"));
    apexCall(onActivate);
    apexCall(onDeactivate); // its hook panics, contained
    count();
    apexCall(onActivate);
    onUnbind.invoke(null); // ends that open binding; its hook panics, contained
    count();
    expectContains(
        "admin after unbind", "\"active\":0", (String) admin.invoke(null, "{\"op\":\"state\"}"));
    String[] apexWho =
        (String[])
            executeTool.invoke(
                null, "rustfixture__whoami", "{}", 10124, 0L, new String[] {"com.h", null}, null);
    expectContains("apex whoami", "\"uid\":10124", apexWho[0]);

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
                        apexExecute("rustfixture__echo", "{\"text\":\"" + text + "\"}")[0]);
                  }
                }
                return perThread;
              }));
    }
    for (Future<Integer> f : futures) {
      f.get(5, TimeUnit.MINUTES); // hang guard only
    }
    pool.shutdown();
    // Starting again (a new provider instance in the same process) keeps answering.
    expect("re-init", null, init.invoke(null, args[1], args[1] + "-nb", "dev.cetp.rustfixture", 1L, "1.0"));
    expectSuccess("after re-init", exec("list_tools", null, null, null));
    System.out.println("JNI-CHECK OK " + calls);
    System.exit(0);
  }

  private static String[] whoami(
      String requestId, int uid, long token, String[] packages, String[][] digests) throws Exception {
    count();
    return (String[])
        call.invoke(null, "execute_tool", "whoami", null, requestId, uid, token, packages, digests);
  }

  private static synchronized void count() {
    calls++;
  }

  /** One CETP call from uid 10001, package com.example.agent, read anew every time (token 0). */
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
            0L,
            new String[] {"com.example.agent"},
            new String[][] {{}});
  }

  /** One Apex transaction of {@code method} (a caller-only native) from uid 10001. */
  private static String apexCall(Method method) throws Exception {
    count();
    return (String)
        method.invoke(null, 10001, 0L, new String[] {"com.example.agent"}, new String[][] {{}});
  }

  /** One Apex {@code executeTool} from uid 10001: {@code {text, errorCode}}. */
  private static String[] apexExecute(String toolId, String arguments) throws Exception {
    count();
    return (String[])
        executeTool.invoke(
            null, toolId, arguments, 10001, 0L, new String[] {"com.example.agent"}, new String[][] {{}});
  }

  private static void expectApexCode(String what, String code, String[] reply) {
    if (reply == null
        || reply.length != 2
        || !code.equals(reply[1])
        || reply[0] == null
        || !reply[0].startsWith("Error: " + code + ": ")) {
      fail(what + ": expected " + code + ", got " + Arrays.toString(reply));
    }
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
