package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import android.app.Activity;
import android.content.pm.ApplicationInfo;
import android.graphics.Rect;
import android.text.Layout;
import android.util.DisplayMetrics;
import android.view.View;
import android.view.ViewGroup;
import android.widget.ScrollView;
import android.widget.TextView;
import dev.cetp.e2e.category.AuthProviderBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.Approval;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.ConsentDialog;
import dev.cetp.testkit.ToolReply;
// Internal: the dialog's views by key, and the rendering its layout is measured on.
import dev.cetp.testkit.internal.ConsentScreens;
import dev.cetp.testkit.internal.Screenshots;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TimeZone;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;
import org.robolectric.annotation.GraphicsMode;

/**
 * The consent dialog fits a 411 x 891 dp phone without scrolling and cuts no text, in every
 * shipped language and at font scales 1.0 and 1.3, for one scope (and for an app that already
 * has one): measured on the layout as rendered with native graphics. A text is cut when its
 * layout ellipsizes a line, when its lines need more height than its view has or are drawn past
 * its sides, or when part of its view lies outside what the window shows (a scroll edge, the
 * screen's edge); the dialog does not fit when its body would have to scroll or its window is
 * taller than the screen. Runs in {@code bundle-auth-provider}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(AuthProviderBundle.class)
@GraphicsMode(GraphicsMode.Mode.NATIVE)
@Config(qualifiers = "w411dp-h891dp-port-xhdpi")
public class ConsentDialogFitTest {
  static final int AGENT_UID = ConsentScreensTest.AGENT_UID;
  static final String AGENT = ConsentScreensTest.AGENT;
  static final String PHONE = "w411dp-h891dp-port-xhdpi";

  /** The template's languages: res/values (English) and every res/values-xx. */
  static final String[] LANGUAGES = {"en-rUS", "ar-rEG", "de", "es", "fr", "hi", "ja", "pt-rBR", "zh-rCN"};

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  private Agent agent;
  private TimeZone zone;
  private Locale locale;

  @Before
  public void setUp() throws IOException {
    zone = TimeZone.getDefault();
    locale = Locale.getDefault();
    TimeZone.setDefault(TimeZone.getTimeZone("UTC"));
    Locale.setDefault(Locale.US);
    cetp.context().getApplicationInfo().flags |= ApplicationInfo.FLAG_SUPPORTS_RTL;
    File clock =
        new File(RuntimeEnvironment.getApplication().getFilesDir(), ConsentScreensTest.CLOCK_FILE);
    Files.write(
        clock.toPath(),
        Long.toString(ConsentScreensTest.START_MS).getBytes(StandardCharsets.US_ASCII));
    agent = cetp.agent(AGENT, "ClawSeed", AGENT_UID, ConsentScreensTest.AGENT_CERT);
  }

  @After
  public void tearDown() {
    TimeZone.setDefault(zone);
    Locale.setDefault(locale);
  }

  /** The agent asks for {@code tool}, and is refused. */
  private ToolReply refused(String tool) {
    ToolReply refused = agent.call(tool, "{}");
    assertEquals("AUTH_REQUIRED", refused.errorCode());
    return refused;
  }

  @Test
  public void oneScopeFitsUncutInEveryLanguageAtFontScales1And1_3() {
    assertFitsEverywhere("one scope", refused("count_entries"));
  }

  /** The app already has one scope and asks for another: the dialog says what it has first. */
  @Test
  public void aSecondScopeFitsUncutInEveryLanguageAtFontScales1And1_3() {
    try (ConsentDialog first = agent.openConsentDialog(refused("entry_access"))) {
      first.allow(ConsentDialog.Duration.ONE_HOUR, Approval.Access.LIMITED);
    }
    assertFitsEverywhere("already has one scope", refused("photo_access"));
  }

  /**
   * The dialog of the agent's pending request ({@code refused} sent it there) in every language
   * at both font scales: every problem found.
   */
  private void assertFitsEverywhere(String what, ToolReply refused) {
    List<String> problems = new ArrayList<>();
    for (float scale : new float[] {1.0f, 1.3f}) {
      for (String language : LANGUAGES) {
        RuntimeEnvironment.setQualifiers(language + "-" + PHONE);
        RuntimeEnvironment.setFontScale(scale);
        try (ConsentDialog dialog = agent.openConsentDialog(refused)) {
          assertTrue(dialog.text(), ConsentScreens.of(dialog).find("cetp:allow") != null);
          for (String problem : cut(dialog.activity())) {
            problems.add(what + ", " + language + " at " + scale + ": " + problem);
          }
        }
      }
    }
    assertTrue(String.join("\n", problems), problems.isEmpty());
  }

  /** Every way the dialog on {@code activity} fails to show all it says at once. */
  static List<String> cut(Activity activity) {
    Screenshots.render(activity);
    List<String> out = new ArrayList<>();
    DisplayMetrics dm = activity.getResources().getDisplayMetrics();
    View decor = activity.getWindow().getDecorView();
    if (decor.getHeight() > dm.heightPixels) {
      out.add("the window is " + dp(decor.getHeight(), dm) + " dp tall, the screen " + dp(dm.heightPixels, dm));
    }
    int bodyId = activity.getResources().getIdentifier("cetp_consent_body", "id", activity.getPackageName());
    ScrollView body = activity.findViewById(bodyId);
    if (body == null) {
      out.add("no consent dialog on screen");
      return out;
    }
    if (body.canScrollVertically(1) || body.canScrollVertically(-1)) {
      int inner = body.getHeight() - body.getPaddingTop() - body.getPaddingBottom();
      out.add(
          "the body scrolls: " + dp(body.getChildAt(0).getHeight(), dm) + " dp in "
              + dp(inner, dm) + " dp");
    }
    collect(decor, dm, out);
    return out;
  }

  private static void collect(View view, DisplayMetrics dm, List<String> out) {
    if (view.getVisibility() != View.VISIBLE) {
      return;
    }
    if (view instanceof TextView) {
      TextView text = (TextView) view;
      CharSequence value = text.getText();
      if (value != null && value.length() > 0) {
        checkText(text, dm, out);
      }
    }
    if (view instanceof ViewGroup) {
      ViewGroup group = (ViewGroup) view;
      for (int i = 0; i < group.getChildCount(); i++) {
        collect(group.getChildAt(i), dm, out);
      }
    }
  }

  private static void checkText(TextView text, DisplayMetrics dm, List<String> out) {
    String name = "\"" + text.getText() + "\"";
    Layout layout = text.getLayout();
    if (layout == null) {
      out.add(name + " was never laid out");
      return;
    }
    int height = text.getHeight() - text.getCompoundPaddingTop() - text.getCompoundPaddingBottom();
    for (int line = 0; line < layout.getLineCount(); line++) {
      if (layout.getEllipsisCount(line) > 0) {
        out.add(name + " is cut short on line " + (line + 1));
      }
      // Where the line's glyphs are drawn, in the view: inside it, or cut at its side.
      float left = text.getCompoundPaddingLeft() + layout.getLineLeft(line);
      float right = text.getCompoundPaddingLeft() + layout.getLineRight(line);
      if (left < -1 || right > text.getWidth() + 1) {
        out.add(
            name + " line " + (line + 1) + " is drawn from " + Math.round(left) + " to "
                + Math.round(right) + " px in a view " + text.getWidth() + " px wide");
      }
    }
    if (layout.getLineCount() != text.getLineCount() || layout.getHeight() > height) {
      out.add(
          name + " needs " + dp(layout.getHeight(), dm) + " dp for " + layout.getLineCount()
              + " lines, has " + dp(height, dm));
    }
    Rect shown = new Rect();
    if (!text.getGlobalVisibleRect(shown)
        || shown.height() < text.getHeight()
        || shown.width() < text.getWidth()) {
      out.add(
          name + " shows " + dp(shown.height(), dm) + " of its " + dp(text.getHeight(), dm)
              + " dp (cut at an edge)");
    }
  }

  private static int dp(int px, DisplayMetrics dm) {
    return Math.round(px / dm.density);
  }
}
