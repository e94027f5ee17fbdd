package dev.cetp.testkit.internal;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A host bundle directory, {@code target/cetp-host/<sample>/}: {@code app.jar} (the app's Java
 * classes, template and {@code R} classes included), {@code lib<name>.so} (the Rust library built
 * for the host), {@code AndroidManifest.xml} and, for bundles built by {@code cargo xtask
 * host-build}, {@code resources.ap_} (the resources compiled by aapt, with the binary manifest).
 * The Surefire execution of a bundle puts {@code app.jar} on the test classpath, the directory on
 * {@code java.library.path} and passes the directory as {@code -Dcetp.bundle}; {@link #current()}
 * checks all three so a miswired run fails with a clear message. A bundle with a resource package
 * carries {@code com/android/tools/test_config.properties} in its {@code app.jar}: Robolectric
 * then runs in binary-resources mode with the bundle's app as the test application, which {@link
 * #install()} checks.
 */
public final class HostBundle {
  /** The system property naming the bundle directory. */
  public static final String PROPERTY = "cetp.bundle";

  private final Path dir;

  private HostBundle(Path dir) {
    this.dir = dir;
  }

  /** The bundle named by {@code -Dcetp.bundle}, verified. */
  public static HostBundle current() {
    String value = System.getProperty(PROPERTY);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          "-D"
              + PROPERTY
              + " is not set: run an app's tests with `cargo cetp test`, which starts the test"
              + " JVM with its host bundle (in the SDK's own suite, each bundle has its Surefire"
              + " execution, bundle-<name>, in tests/android/e2e/pom.xml)");
    }
    return at(Paths.get(value));
  }

  /** The bundle in {@code dir}, verified against this JVM's classpath and library path. */
  public static HostBundle at(Path dir) {
    Path abs = dir.toAbsolutePath().normalize();
    HostBundle b = new HostBundle(abs);
    if (!Files.isDirectory(abs)) {
      throw new IllegalStateException(
          "Host bundle "
              + abs
              + " does not exist. Build it first (`cargo cetp build`; in the SDK's repository"
              + " `cargo xtask host-build`), or skip its execution with -Dcetp.skip.<name>=true.");
    }
    requireFile(b.manifest());
    requireFile(b.appJar());
    if (!onTestClasspath(b.appJar())) {
      throw new IllegalStateException(
          b.appJar() + " is not on the test classpath (additionalClasspathElements)");
    }
    if (!b.nativeLibraries().isEmpty() && !onLibraryPath(abs)) {
      throw new IllegalStateException(
          abs + " holds native libraries but is not on java.library.path ("
              + System.getProperty("java.library.path") + ")");
    }
    return b;
  }

  /** The bundle's directory. */
  public Path dir() {
    return dir;
  }

  /** The sample's name: the directory name ({@code minimal}, {@code notes}, ...). */
  public String name() {
    return dir.getFileName().toString();
  }

  /** The merged manifest (placeholders and boolean resources resolved). */
  public Path manifest() {
    return dir.resolve("AndroidManifest.xml");
  }

  /** The app's classes: template, app, {@code R} and {@code test_config.properties}. */
  public Path appJar() {
    return dir.resolve("app.jar");
  }

  /** The {@code lib*.so} files in the bundle (empty for the pure-Java fixture). */
  public List<Path> nativeLibraries() {
    List<Path> out = new ArrayList<>();
    try (Stream<Path> s = Files.list(dir)) {
      s.filter(p -> p.getFileName().toString().matches("lib.+\\.so")).sorted().forEach(out::add);
    } catch (IOException e) {
      throw new IllegalStateException("cannot list " + dir, e);
    }
    return out;
  }

  /**
   * The name to pass to {@code System.loadLibrary} for the bundle's only native library
   * ({@code libfoo.so} gives {@code foo}).
   */
  public String nativeLibraryName() {
    List<Path> libs = nativeLibraries();
    if (libs.size() != 1) {
      throw new IllegalStateException("expected one lib*.so in " + dir + ", found " + libs);
    }
    String f = libs.get(0).getFileName().toString();
    return f.substring(3, f.length() - 3);
  }

  /** The compiled resources and binary manifest ({@code resources.ap_}), if the bundle has them. */
  public Path resourcePackage() {
    return dir.resolve("resources.ap_");
  }

  /**
   * Parses and installs the bundle's manifest into Robolectric's PackageManager (for a bundle with
   * a resource package: checks that Robolectric runs it as the test application).
   */
  public ManifestInstaller.Installed install() {
    return requireTestApplication(ManifestInstaller.parse(manifest())).install();
  }

  /** {@link #install()} with {@code options} for the manifest installer. */
  public ManifestInstaller.Installed install(ManifestInstaller.Options options) {
    return requireTestApplication(ManifestInstaller.parse(manifest(), options)).install();
  }

  private ManifestInstaller.Parsed requireTestApplication(ManifestInstaller.Parsed parsed) {
    if (Files.isRegularFile(resourcePackage()) && !parsed.isTheTestApplication()) {
      throw new IllegalStateException(
          "Robolectric is not running "
              + parsed.packageName()
              + " from "
              + resourcePackage()
              + " (binary resources): is com/android/tools/test_config.properties in "
              + appJar()
              + "? Rebuild the bundle with cargo cetp build (or cargo xtask host-build).");
    }
    return parsed;
  }

  private static void requireFile(Path p) {
    if (!Files.isRegularFile(p)) {
      throw new IllegalStateException("Host bundle file missing: " + p);
    }
  }

  /**
   * Surefire puts the test classpath in a manifest-only jar and reports the real one in {@code
   * surefire.test.class.path}; plain runs use {@code java.class.path}.
   */
  private static boolean onTestClasspath(Path jar) {
    for (String prop : new String[] {"surefire.test.class.path", "java.class.path"}) {
      String cp = System.getProperty(prop);
      if (cp != null && containsPath(cp, jar)) {
        return true;
      }
    }
    return false;
  }

  private static boolean onLibraryPath(Path dir) {
    String lp = System.getProperty("java.library.path");
    return lp != null && containsPath(lp, dir);
  }

  private static boolean containsPath(String pathList, Path wanted) {
    for (String entry : pathList.split(File.pathSeparator)) {
      if (!entry.isEmpty() && Paths.get(entry).toAbsolutePath().normalize().equals(wanted)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return "HostBundle(" + dir + ")";
  }
}
