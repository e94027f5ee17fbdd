package dev.cetp.e2e.category;

/**
 * JUnit category of the narrated demo ({@code NotesDemo}, run by {@code cargo xtask demo})
 * against the "notes" host bundle. It runs only in the {@code demo-notes} execution, which is
 * skipped unless {@code -Dcetp.skip.demo=false}, so the normal suite neither runs nor prints it.
 */
public interface Demo {}
