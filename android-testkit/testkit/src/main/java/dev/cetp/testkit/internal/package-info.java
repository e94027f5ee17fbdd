/**
 * Not API: the machinery under {@link dev.cetp.testkit}, which may change in any release.
 *
 * <p>It installs a host bundle from its merged manifest, carries an agent's calls (discovery,
 * {@code ContentResolver.call}, {@code Parcel} round trips), plays the Apex agent, drives the
 * consent screens and records approvals through the provider's admin interface. The SDK's own
 * end-to-end suite reaches in here only for what no app's test does: launching the screens as a
 * hostile app would, raw Binder transactions, counting PackageManager lookups, screenshots and
 * accessibility checks, and the installer's own tests. An app's tests use {@link
 * dev.cetp.testkit} alone.
 */
package dev.cetp.testkit.internal;
