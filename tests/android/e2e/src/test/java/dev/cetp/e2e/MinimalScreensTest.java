package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import android.content.Intent;
import android.graphics.Bitmap;
import dev.cetp.harness.Accessibility;
import dev.cetp.harness.ApprovalScreen;
import dev.cetp.harness.Approvals;
import dev.cetp.harness.Callers;
import dev.cetp.harness.CetpConsumer;
import dev.cetp.harness.HostBundle;
import dev.cetp.harness.Screenshots;
import dev.cetp.harness.category.MinimalBundle;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;
import org.robolectric.annotation.GraphicsMode;

/**
 * The consent dialog of a provider without scopes that declared full access only (the
 * minimal sample, {@code ProviderBuilder::full_access_only}): no full / limited choice. Screenshot
 * and accessibility checks as in {@link ApprovalScreensTest}. Runs in {@code bundle-minimal}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(MinimalBundle.class)
@GraphicsMode(GraphicsMode.Mode.NATIVE)
@Config(qualifiers = "w411dp-h891dp-port-xhdpi")
public class MinimalScreensTest {
  static final String AUTHORITY = "dev.cetp.samples.minimal.tools";
  static final String AUTHORIZE = "dev.cetp.samples.minimal.CETP_AUTHORIZE";
  static final int AGENT_UID = 10_123;
  static final String AGENT = "com.clawseed.agent";

  private ApprovalScreen screen;

  @Before
  public void setUp() {
    HostBundle.current().install().startProviders();
    Callers.installLabelled(
        RuntimeEnvironment.getApplication().getPackageManager(),
        AGENT_UID,
        AGENT,
        "ClawSeed",
        "agent-signing-cert".getBytes(StandardCharsets.UTF_8));
    Callers.setCallingUid(AGENT_UID);
    assertEquals(
        "AUTH_REQUIRED",
        new CetpConsumer().executeTool(AUTHORITY, "greet", "{\"name\":\"Ada\"}", null).errorCode());
    assertFalse(Approvals.state().optBoolean("offers_limited_access", true));
    screen = ApprovalScreen.launchFrom(AGENT, new Intent(AUTHORIZE));
  }

  @After
  public void tearDown() {
    screen.close();
  }

  private void check(String golden) throws IOException {
    assertEquals(
        screen.text(), "Allow ClawSeed to use the tools of Minimal sample?", screen.texts().get(0));
    assertNull("no full / limited choice", screen.find("cetp:access:limited"));
    assertFalse(screen.text(), screen.text().contains("Limited"));
    Bitmap shot = Screenshots.render(screen.activity());
    List<String> problems = Accessibility.problemsScrolledThrough(screen.activity(), shot);
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
