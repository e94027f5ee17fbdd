package dev.cetp;

import java.util.Collections;
import java.util.List;
import org.jspecify.annotations.NullUnmarked;

/**
 * The provider's state as the consent dialog and Apps with access show it: the admin JSON read
 * once by {@link CetpAdminJson}, immutable. What an app holds, which pending requests the dialog
 * may offer and whether a request asks for more were decided by the provider (Rust, {@code
 * auth/}); nothing here compares grants.
 */
@NullUnmarked
final class CetpAdminState {
  /** The provider's name, in its own words. */
  final String providerName;
  /** The declared scopes, in declaration order. */
  final List<Scope> scopes;
  /** The pending requests the screen may offer, in order of first request. */
  final List<PendingRequest> pending;
  /** Every stored grant, each app once per certificate. */
  final List<Grant> grants;
  /** Every stored denial. */
  final List<Denial> denials;
  /** Whether the grant store is open (else nothing can be decided). */
  final boolean storeOpen;
  /** Whether a change is in force but not saved yet. */
  final boolean unsavedChanges;
  /** The provider's clock when the state was read, ms since the epoch. */
  final long nowMs;
  /** Whether the dialog offers limited access. */
  final boolean offersLimitedAccess;

  CetpAdminState(
      String providerName,
      List<Scope> scopes,
      List<PendingRequest> pending,
      List<Grant> grants,
      List<Denial> denials,
      boolean storeOpen,
      boolean unsavedChanges,
      long nowMs,
      boolean offersLimitedAccess) {
    this.providerName = providerName;
    this.scopes = Collections.unmodifiableList(scopes);
    this.pending = Collections.unmodifiableList(pending);
    this.grants = Collections.unmodifiableList(grants);
    this.denials = Collections.unmodifiableList(denials);
    this.storeOpen = storeOpen;
    this.unsavedChanges = unsavedChanges;
    this.nowMs = nowMs;
    this.offersLimitedAccess = offersLimitedAccess;
  }

  /** The provider's words for the scope {@code name} (its name when it is not declared). */
  String scopeWords(String name) {
    for (Scope scope : scopes) {
      if (scope.name.equals(name)) {
        return scope.words;
      }
    }
    return name;
  }

  /** The pending request {@code id}, or null. */
  PendingRequest request(String id) {
    if (id == null) {
      return null;
    }
    for (PendingRequest request : pending) {
      if (id.equals(request.id)) {
        return request;
      }
    }
    return null;
  }

  /** A scope: its name, and the provider's words for it (the name when it gave none). */
  static final class Scope {
    final String name;
    final String words;

    Scope(String name, String words) {
      this.name = name;
      this.words = words;
    }
  }

  /** An app: its package, and the certificate it is identified by (hex SHA-256, or null). */
  static final class App {
    final String pkg;
    final String certificate;

    App(String pkg, String certificate) {
      this.pkg = pkg;
      this.certificate = certificate;
    }
  }

  /**
   * What the user chose for one scope (or, with a null {@link #scope}, for the tools that need
   * none): how much, and until when.
   */
  static final class ScopeAccess {
    /** {@link #expiresAtMs} of an approval that never lapses. */
    static final long NEVER = Long.MAX_VALUE;

    /** The scope's name; null for the tools that need no scope. */
    final String scope;
    final boolean limited;
    /** When it lapses, ms since the epoch; {@link #NEVER}. */
    final long expiresAtMs;
    /** Whether it had lapsed when the provider read the state (it says so; nothing here asks). */
    final boolean expired;

    ScopeAccess(String scope, boolean limited, long expiresAtMs, boolean expired) {
      this.scope = scope;
      this.limited = limited;
      this.expiresAtMs = expiresAtMs;
      this.expired = expired;
    }

    boolean expires() {
      return expiresAtMs != NEVER;
    }
  }

  /** A pending request: an app waiting for the user's answer. */
  static final class PendingRequest {
    final String id;
    /** The UID it was recorded from, or -1. */
    final int uid;
    /** The packages of its UID, each with its first certificate. */
    final List<App> packages;
    /** The scopes it asks for (those its app lacks), in declaration order. */
    final List<Scope> scopes;
    final long firstRequestedMs;
    final long requestedAtMs;
    /** When it lapses unless asked for again; 0: not said. */
    final long expiresAtMs;
    /** What its app already holds, per scope, as the provider decided it. */
    final List<ScopeAccess> held;
    /** What its app may use of the tools that need no scope, or null. */
    final ScopeAccess heldNoScope;
    /** Whether its app already holds something, so the dialog asks for more. */
    final boolean asksForMore;

    PendingRequest(
        String id,
        int uid,
        List<App> packages,
        List<Scope> scopes,
        long firstRequestedMs,
        long requestedAtMs,
        long expiresAtMs,
        List<ScopeAccess> held,
        ScopeAccess heldNoScope,
        boolean asksForMore) {
      this.id = id;
      this.uid = uid;
      this.packages = Collections.unmodifiableList(packages);
      this.scopes = Collections.unmodifiableList(scopes);
      this.firstRequestedMs = firstRequestedMs;
      this.requestedAtMs = requestedAtMs;
      this.expiresAtMs = expiresAtMs;
      this.held = Collections.unmodifiableList(held);
      this.heldNoScope = heldNoScope;
      this.asksForMore = asksForMore;
    }
  }

  /** A stored grant: what one app may use, per scope, and what the access log knows. */
  static final class Grant {
    final App app;
    /** Each approved scope, an expired one too until the provider drops it. */
    final List<ScopeAccess> perScope;
    /** What it may use of the tools that need no scope, or null. */
    final ScopeAccess noScope;
    /** Its last call, ms since the epoch; -1: never. */
    final long lastAccessMs;
    final long callsDay;
    final long callsWeek;

    Grant(
        App app,
        List<ScopeAccess> perScope,
        ScopeAccess noScope,
        long lastAccessMs,
        long callsDay,
        long callsWeek) {
      this.app = app;
      this.perScope = Collections.unmodifiableList(perScope);
      this.noScope = noScope;
      this.lastAccessMs = lastAccessMs;
      this.callsDay = callsDay;
      this.callsWeek = callsWeek;
    }
  }

  /** A stored denial: an app the user declined. */
  static final class Denial {
    final App app;
    final long deniedAtMs;

    Denial(App app, long deniedAtMs) {
      this.app = app;
      this.deniedAtMs = deniedAtMs;
    }
  }
}
