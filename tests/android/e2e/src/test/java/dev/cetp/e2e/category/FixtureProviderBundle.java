package dev.cetp.e2e.category;

/**
 * JUnit category of tests that run against the "fixture-provider" host bundle: the Rust fixture
 * provider ({@code tests/fixture-provider}) behind the real Android template, built by {@code
 * cargo xtask host-build tests/fixture-provider}. Surefire runs them in the {@code
 * bundle-fixture-provider} execution.
 */
public interface FixtureProviderBundle {}
