package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import dev.cetp.testkit.ToolReply;
import org.junit.Test;

/** How the kit reads Apex's one-line answers (no bundle needed). */
public class ToolReplyTest {
  @Test
  public void anApexResultIsASuccessWithItsText() {
    ToolReply reply = ToolReply.ofApex("[{\"id\":1}]");
    assertTrue(reply.isSuccess());
    assertEquals("[{\"id\":1}]", reply.data());
    assertNull(reply.errorCode());
  }

  @Test
  public void anApexErrorGivesItsCodeMessageAndHint() {
    ToolReply reply =
        ToolReply.ofApex(
            "Error: AUTH_REQUIRED: the user has not yet allowed x: y\nHint: Open Notes and allow x");
    assertFalse(reply.isSuccess());
    assertEquals("error", reply.status());
    assertEquals("AUTH_REQUIRED", reply.errorCode());
    assertEquals("the user has not yet allowed x: y", reply.errorMessage());
    assertEquals("Open Notes and allow x", reply.resolutionHint());
    assertNull(reply.authorizeIntent());
    reply.assertError("AUTH_REQUIRED").assertMessageContains("not yet allowed");
    ToolReply bare = ToolReply.ofApex("Error: INTERNAL_ERROR");
    assertEquals("INTERNAL_ERROR", bare.errorCode());
    assertEquals("", bare.errorMessage());
  }
}
