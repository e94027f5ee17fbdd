package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import android.content.Intent;
import android.graphics.Bitmap;
import dev.cetp.testkit.internal.Accessibility;
import dev.cetp.testkit.internal.ConsentScreens;
import dev.cetp.testkit.internal.ConsentAdmin;
import dev.cetp.testkit.internal.Callers;
import dev.cetp.testkit.internal.CetpTransport;
import dev.cetp.testkit.internal.HostBundle;
import dev.cetp.testkit.internal.Screenshots;
import dev.cetp.e2e.category.MinimalBundle;
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

  private ConsentScreens screen;

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
        new CetpTransport().executeTool(AUTHORITY, "greet", "{\"name\":\"Ada\"}", null).errorCode());
    assertFalse(ConsentAdmin.state().optBoolean("offers_limited_access", true));
    screen = ConsentScreens.launchFrom(AGENT, new Intent(AUTHORIZE));
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
