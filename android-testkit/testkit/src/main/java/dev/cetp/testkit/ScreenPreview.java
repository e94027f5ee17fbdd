package dev.cetp.testkit;

import android.app.Activity;
import dev.cetp.testkit.internal.Screenshots;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.Rule;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.annotation.Config;
import org.robolectric.annotation.GraphicsMode;

/**
 * What {@code cargo cetp preview} runs: a made-up agent app calls the app's first tool, opens
 * the consent dialog it is sent to, allows it, and the app opens Apps with access; both screens
 * are rendered by Robolectric's native graphics (a 411 × 891 dp phone at xhdpi) in the light
 * theme, the night theme and in Arabic, right to left when the app declares {@code
 * android:supportsRtl}, to {@code <-Dcetp.preview.out>/<screen>-<look>.png}.
 *
 * <p>The screens show the app's own provider name, scopes and scope wording, exactly as the
 * phone's owner would see them; nothing is compared with anything.
 */
@RunWith(RobolectricTestRunner.class)
@GraphicsMode(GraphicsMode.Mode.NATIVE)
@Config(sdk = 34, qualifiers = "w411dp-h891dp-port-xhdpi")
public class ScreenPreview {
  /** The rule that installs and starts the app. */
  @Rule public final CetpTestRule cetp = new CetpTestRule();

  /** Creates the preview (JUnit does). */
  public ScreenPreview() {}

  /** @throws IOException when a PNG cannot be written */
  @Test
  public void light() throws IOException {
    render("light");
  }

  /** @throws IOException when a PNG cannot be written */
  @Test
  @Config(qualifiers = "+night")
  public void night() throws IOException {
    render("night");
  }

  /** @throws IOException when a PNG cannot be written */
  @Test
  @Config(qualifiers = "+ar-rEG")
  public void arabic() throws IOException {
    render("ar");
  }

  private void render(String look) throws IOException {
    Path out = Paths.get(property("cetp.preview.out"));
    Files.createDirectories(out);
    Agent agent =
        cetp.agent(
            property("cetp.preview.agentPackage"),
            property("cetp.preview.agentLabel"),
            10_321,
            "example agent signing key".getBytes(StandardCharsets.UTF_8));
    List<String> tools = agent.toolNames();
    if (tools.isEmpty()) {
      throw new AssertionError("the provider lists no tool: there is nothing to ask for");
    }
    ToolReply asked = agent.call(tools.get(0), "{}");
    if (asked.authorizeIntent() == null) {
      throw new AssertionError(
          "the provider did not ask the user (" + asked + "): its policy shows no consent dialog");
    }
    try (ConsentDialog dialog = agent.openConsentDialog(asked)) {
      write(dialog.activity(), out.resolve("consent-" + look + ".png"));
      dialog.allow();
    }
    agent.call(tools.get(0), "{}");
    try (AppsWithAccess apps = cetp.openAppsWithAccess()) {
      write(apps.activity(), out.resolve("apps-with-access-" + look + ".png"));
    }
  }

  private static void write(Activity activity, Path png) throws IOException {
    File file = png.toFile();
    if (!ImageIO.write(Screenshots.toImage(Screenshots.render(activity)), "png", file)) {
      throw new IOException("no PNG writer for " + file);
    }
  }

  private static String property(String name) {
    String value = System.getProperty(name);
    if (value == null || value.isEmpty()) {
      throw new IllegalStateException("-D" + name + " is not set (cargo cetp preview sets it)");
    }
    return value;
  }
}
