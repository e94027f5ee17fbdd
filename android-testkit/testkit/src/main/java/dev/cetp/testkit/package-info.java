/**
 * The test kit for an app's own Robolectric tests of its CETP provider: the app's host bundle
 * (built by {@code cargo cetp build}) runs on the JVM as the app would on a phone, and the tests
 * play the agent apps that call it and the user who answers the consent dialog. {@code cargo cetp
 * test} compiles the tests in {@code android/src/test/java} (and {@code android/src/test/kotlin})
 * and runs them with this kit.
 *
 * <ul>
 *   <li>{@link dev.cetp.testkit.CetpTestRule}: the JUnit 4 rule that installs the bundle's
 *       components from its merged manifest and starts its providers;
 *   <li>{@link dev.cetp.testkit.Agent}: an agent app by UID, package and signing certificate,
 *       approved ({@link dev.cetp.testkit.Approval}) or not, calling through {@code
 *       ContentResolver.call} (CETP) or the Apex plugin binder ({@link
 *       dev.cetp.testkit.ApexPlugin});
 *   <li>{@link dev.cetp.testkit.ToolReply}: what a call answered, with assertions;
 *   <li>{@link dev.cetp.testkit.V2Session} and {@link dev.cetp.testkit.V2Reply}: a CETP v2
 *       agent as ClawSeed's newest client, with its acceptance rules ({@link
 *       dev.cetp.testkit.V2Session#assertConformant()}), operations of long-running tools
 *       ({@link dev.cetp.testkit.V2Session#getOperation(String)}, {@link
 *       dev.cetp.testkit.V2Session#cancelOperation(String)}, {@link
 *       dev.cetp.testkit.V2Session#assertOperationsConformant(String, String)}) and the words
 *       of {@link dev.cetp.testkit.CetpV2};
 *   <li>{@link dev.cetp.testkit.ConsentDialog} and {@link dev.cetp.testkit.AppsWithAccess}: the
 *       consent screens, read and tapped as the user would.
 * </ul>
 *
 * <pre>{@code
 * @RunWith(RobolectricTestRunner.class)
 * public class ProviderTest {
 *   @Rule public final CetpTestRule cetp = new CetpTestRule();
 *
 *   @Test
 *   public void anAgentAsksTheUserFirst() {
 *     Agent agent = cetp.agent("com.example.agent");
 *     ToolReply refused = agent.call("find_items", "{\"words\":\"soup\"}");
 *     refused.assertError("AUTH_REQUIRED");
 *     try (ConsentDialog dialog = agent.openConsentDialog(refused)) {
 *       assertEquals("Allow com.example.agent to read your saved items from Recipes?",
 *           dialog.question());
 *       dialog.allow(ConsentDialog.Duration.ONE_DAY, Approval.Access.FULL);
 *     }
 *     agent.call("find_items", "{\"words\":\"soup\"}").assertSuccess();
 *   }
 * }
 * }</pre>
 *
 * <p>The package {@code dev.cetp.testkit.internal} holds the machinery underneath (the manifest
 * installer, the calls' transport, simulated callers, the Apex agent, the screens' driver,
 * screenshots). It is not API; the SDK's own end-to-end suite reaches into it only for what no
 * app's test does.
 *
 * <p>Null-marked (JSpecify): a type without {@code @Nullable} is never null, so Kotlin sees it as
 * a non-null type.
 */
@NullMarked
package dev.cetp.testkit;

import org.jspecify.annotations.NullMarked;
