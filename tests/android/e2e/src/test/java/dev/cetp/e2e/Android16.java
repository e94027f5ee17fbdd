package dev.cetp.e2e;

/**
 * JUnit category of the classes that run again on Android 16 (SDK 36), in the execution {@code
 * bundle-notes-android16} of their own JVM.
 */
public interface Android16 {}
