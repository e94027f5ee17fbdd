package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import android.graphics.Bitmap;
import dev.cetp.e2e.category.MinimalBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.ConsentDialog;
import dev.cetp.testkit.ToolReply;
// Internal: the admin state asserted on, screenshots and accessibility checks.
import dev.cetp.testkit.internal.Accessibility;
import dev.cetp.testkit.internal.ConsentAdmin;
import dev.cetp.testkit.internal.Screenshots;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.annotation.Config;
import org.robolectric.annotation.GraphicsMode;

/**
 * The consent dialog of a provider without scopes that declared full access only (the
 * minimal sample, {@code ProviderBuilder::full_access_only}): no full / limited choice. Screenshot
 * and accessibility checks as in {@link ConsentScreensTest}. Runs in {@code bundle-minimal}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(MinimalBundle.class)
@GraphicsMode(GraphicsMode.Mode.NATIVE)
@Config(qualifiers = "w411dp-h891dp-port-xhdpi")
public class MinimalScreensTest {
  static final int AGENT_UID = 10_123;
  static final String AGENT = "com.clawseed.agent";

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  /** Opened by the agent with its refused call's authorize intent; the rule closes it. */
  private ConsentDialog dialog;

  @Before
  public void setUp() {
    Agent agent =
        cetp.agent(
            AGENT, "ClawSeed", AGENT_UID, "agent-signing-cert".getBytes(StandardCharsets.UTF_8));
    ToolReply refused = agent.call("greet", "{\"name\":\"Ada\"}");
    assertEquals("AUTH_REQUIRED", refused.errorCode());
    assertFalse(ConsentAdmin.state().optBoolean("offers_limited_access", true));
    dialog = agent.openConsentDialog(refused);
  }

  private void check(String golden) throws IOException {
    assertEquals(
        dialog.text(), "Allow ClawSeed to use the tools of Minimal sample?", dialog.texts().get(0));
    assertFalse("no full / limited choice", dialog.offersLimitedAccess());
    assertFalse(dialog.text(), dialog.text().contains("Limited"));
    Bitmap shot = Screenshots.render(dialog.activity());
    List<String> problems = Accessibility.problemsScrolledThrough(dialog.activity(), shot);
    assertTrue(String.join("\n", problems), problems.isEmpty());
    Screenshots.assertMatchesGolden(golden, shot);
  }

  @Test
  public void noScopeProviderLight() throws IOException {
    check("consent-no-scope-light");
  }

  @Test
  @Config(qualifiers = "+night")
  public void noScopeProviderNight() throws IOException {
    check("consent-no-scope-night");
  }
}
