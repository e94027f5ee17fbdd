/**
 * The Android half of a cetp-rs provider app: the exported {@code ContentProvider} CETP agents
 * call ({@link dev.cetp.CetpToolProvider}), the Apex plugin Service ({@link
 * dev.cetp.ApexPluginService}), the consent screens and the caller identity the Rust core
 * authorizes ({@link dev.cetp.CallerIdentity}).
 *
 * <p>Null-marked (JSpecify): a type without {@code @Nullable} is never null, so Kotlin sees it as
 * a non-null type. The package's internal classes, not API, are {@code @NullUnmarked}.
 */
@NullMarked
package dev.cetp;

import org.jspecify.annotations.NullMarked;
