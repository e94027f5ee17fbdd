package dev.cetp.e2e.category;

/**
 * JUnit category of tests that run against the "journal" host bundle. Surefire runs them in the
 * {@code bundle-journal} execution (its own JVM, with the bundle's app.jar on the classpath, its
 * directory as java.library.path and {@code -Dcetp.bundle} pointing at it).
 */
public interface JournalBundle {}
