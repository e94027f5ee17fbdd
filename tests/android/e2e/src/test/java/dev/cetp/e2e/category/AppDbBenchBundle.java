package dev.cetp.e2e.category;

/**
 * JUnit category of the benchmark against the "app-db-bench-provider" host bundle (release):
 * {@code AppDatabaseBenchmark}, in the {@code bundle-app-db-bench} execution, skipped unless
 * {@code -Dcetp.skip.app-db-bench=false} (docs/benchmarks.md says the command).
 */
public interface AppDbBenchBundle {}
