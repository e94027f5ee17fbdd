package dev.cetp.e2e.category;

/**
 * JUnit category of tests that run against the "v1-only-provider" host bundle
 * ({@code tests/v1-only-provider}, built with {@code cetp.v2=false}). Surefire runs them in the
 * {@code bundle-v1-only-provider} execution.
 */
public interface V1OnlyProviderBundle {}
