package dev.cetp.testkit;

import dev.cetp.testkit.internal.ConsentAdmin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * What the user allows an agent, as the consent dialog would record it: full or limited access,
 * every scope the agent asked for or some of them, for ever or for a while.
 *
 * <pre>{@code
 * agent.approve(Approval.full());
 * agent.approve(Approval.limited().scopes("items.read").expiringAfter(Duration.ofHours(1)));
 * }</pre>
 */
public final class Approval {
  /** A grant's access level, as the provider's tools see it ({@code CallContext::access}). */
  public enum Access {
    /** Everything the scopes cover. */
    FULL(ConsentAdmin.Access.FULL),
    /** Only what the provider shows limited callers. */
    LIMITED(ConsentAdmin.Access.LIMITED);

    final ConsentAdmin.Access wire;

    Access(ConsentAdmin.Access wire) {
      this.wire = wire;
    }
  }

  final Access access;
  final List<String> scopes;
  final Duration expiry;

  private Approval(Access access, List<String> scopes, Duration expiry) {
    this.access = access;
    this.scopes = scopes;
    this.expiry = expiry;
  }

  /** @return full access to every scope the agent asked for, until revoked */
  public static Approval full() {
    return new Approval(Access.FULL, null, null);
  }

  /** @return limited access to every scope the agent asked for, until revoked */
  public static Approval limited() {
    return new Approval(Access.LIMITED, null, null);
  }

  /**
   * @param names the scopes to allow (the others the agent asked for stay refused)
   * @return this approval for those scopes only
   */
  public Approval scopes(String... names) {
    return new Approval(access, Collections.unmodifiableList(new ArrayList<>(Arrays.asList(names))), expiry);
  }

  /**
   * @param duration how long the grant lasts from the approval (positive)
   * @return this approval, lapsing after {@code duration}
   */
  public Approval expiringAfter(Duration duration) {
    if (duration == null || duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException("a grant lasts a positive duration: " + duration);
    }
    return new Approval(access, scopes, duration);
  }

  /** @return the access level */
  public Access access() {
    return access;
  }

  @Override
  public String toString() {
    return access
        + (scopes == null ? " access to every scope asked for" : " access to " + scopes)
        + (expiry == null ? ", until revoked" : ", for " + expiry);
  }
}
