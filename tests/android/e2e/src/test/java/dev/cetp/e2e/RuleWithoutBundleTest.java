package dev.cetp.e2e;

import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.internal.HostBundle;
import org.junit.AssumptionViolatedException;
import org.junit.Test;
import org.junit.runner.Description;
import org.junit.runners.model.Statement;

/**
 * A kit test in a JVM without a host bundle (the app's own {@code ./gradlew test}, which compiles
 * the tests {@code cargo cetp init} writes): skipped, saying how to run it, never a failure of
 * the app's build. Runs in the default-test execution, which has no bundle.
 */
public class RuleWithoutBundleTest {
  @Test
  public void withoutAHostBundleTheTestIsSkippedAndSaysWhy() {
    assertNull("this execution runs without a bundle", System.getProperty(HostBundle.PROPERTY));
    Statement body =
        new Statement() {
          @Override
          public void evaluate() {
            fail("the test body ran without a bundle");
          }
        };
    AssumptionViolatedException skipped =
        assertThrows(
            AssumptionViolatedException.class,
            () -> new CetpTestRule().apply(body, Description.EMPTY).evaluate());
    assertTrue(skipped.getMessage(), skipped.getMessage().contains("cargo cetp test"));
  }
}
