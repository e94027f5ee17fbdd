package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;

import dev.cetp.testkit.Agent;
import dev.cetp.testkit.ConsentDialog;
import dev.cetp.testkit.ToolReply;
// Internal: screens the kit's API does not open (the request list, hostile launches).
import dev.cetp.testkit.internal.ConsentScreens;
import java.util.ArrayList;
import java.util.List;

/**
 * What the consent-screen tests share: the screens a test opened, closed after it, and an agent
 * reaching the consent dialog it is sent to.
 */
final class ConsentScreensOpened {
  private final List<ConsentScreens> screens = new ArrayList<>();

  /** {@code screen}, closed by {@link #closeAll}. */
  ConsentScreens keep(ConsentScreens screen) {
    screens.add(screen);
    return screen;
  }

  /** Closes every screen kept; for the test's {@code @After}. */
  void closeAll() {
    for (ConsentScreens screen : screens) {
      screen.close();
    }
    screens.clear();
  }

  /** {@code caller} calls {@code tool}, is refused, and opens the dialog it is sent to. */
  static ConsentDialog asks(Agent caller, String tool) {
    ToolReply refused = caller.call(tool, "{}");
    assertEquals("AUTH_REQUIRED", refused.errorCode());
    return caller.openConsentDialog(refused);
  }
}
