package dev.cetp.e2e.category;

/**
 * JUnit category of tests that run against the "expenses" host bundle. Surefire runs them in the
 * {@code bundle-expenses} execution (its own JVM, with the bundle's app.jar on the classpath, its
 * directory as java.library.path and {@code -Dcetp.bundle} pointing at it).
 */
public interface ExpensesBundle {}
