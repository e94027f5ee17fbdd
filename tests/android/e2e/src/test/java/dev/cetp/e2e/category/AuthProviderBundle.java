package dev.cetp.e2e.category;

/**
 * JUnit category of tests that run against the "auth-provider" host bundle
 * ({@code tests/auth-provider}: a settable clock and a rate limit). Surefire runs them in the
 * {@code bundle-auth-provider} execution.
 */
public interface AuthProviderBundle {}
