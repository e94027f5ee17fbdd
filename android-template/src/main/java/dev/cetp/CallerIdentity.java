package dev.cetp;

import android.content.Context;
import android.content.pm.PackageInfo;
import android.content.pm.PackageManager;
import android.content.pm.Signature;
import android.content.pm.SigningInfo;
import android.os.Build;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Who is calling: a Binder UID, the packages installed under it and the SHA-256 digests of each
 * package's current signing certificates. Every host of the template resolves its caller through
 * {@link #resolve}, which reads the PackageManager once per UID and reuses the answer until a
 * package broadcast says it changed ({@link CallerIdentityCache}, {@code docs/caller-identity.md}).
 */
final class CallerIdentity {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /** {@code Binder.getCallingUid()}. */
  final int uid;

  /** The packages under {@link #uid} (several for a shared UID); empty when none is known. */
  final String[] packages;

  /**
   * Per package, the lower-case hex SHA-256 of each signing certificate; an empty array when they
   * could not be read.
   */
  final String[][] certificateDigests;

  /** The form {@code NativeBridge.call} takes, built once. */
  private final String wire;

  CallerIdentity(int uid, String[] packages, String[][] certificateDigests) {
    this.uid = uid;
    this.packages = packages;
    this.certificateDigests = certificateDigests;
    this.wire = describe(packages, certificateDigests);
  }

  /**
   * The identity of {@code uid}, from the process-wide cache or, on a miss, from the
   * PackageManager.
   */
  static CallerIdentity resolve(Context context, int uid) {
    return CallerIdentityCache.get(context, uid, CallerIdentity::load);
  }

  /**
   * One package per line: the name, then a space and the comma-separated digests when there are
   * any (the format {@code NativeBridge.call} documents). Null when no package is known.
   */
  String packagesText() {
    return wire;
  }

  /**
   * Whether the identity can be reused until a package broadcast: at least one package, each
   * with at least one certificate digest. Anything less (a UID without visible packages, a package
   * the PackageManager would not describe) is read again on the next call.
   */
  boolean isComplete() {
    if (packages.length == 0) {
      return false;
    }
    for (String[] digests : certificateDigests) {
      if (digests.length == 0) {
        return false;
      }
    }
    return true;
  }

  /** Reads the identity of {@code uid} from the PackageManager (no cache). */
  static CallerIdentity load(Context context, int uid) {
    PackageManager pm = context.getPackageManager();
    String[] packages;
    try {
      packages = pm.getPackagesForUid(uid);
    } catch (RuntimeException e) {
      packages = null;
    }
    if (packages == null) {
      return new CallerIdentity(uid, new String[0], new String[0][]);
    }
    String[][] digests = new String[packages.length][];
    for (int i = 0; i < packages.length; i++) {
      digests[i] = digests(signers(pm, packages[i]));
    }
    return new CallerIdentity(uid, packages.clone(), digests);
  }

  private static String[] digests(Signature[] signers) {
    if (signers == null) {
      return new String[0];
    }
    int count = 0;
    String[] out = new String[signers.length];
    for (Signature signer : signers) {
      if (signer != null) {
        out[count++] = sha256(signer.toByteArray());
      }
    }
    return count == out.length ? out : java.util.Arrays.copyOf(out, count);
  }

  /** The certificates the package is signed with now (not its rotation history). */
  @SuppressWarnings("deprecation") // GET_SIGNATURES and PackageInfo.signatures before API 28
  private static Signature[] signers(PackageManager pm, String name) {
    try {
      if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.P) {
        PackageInfo info = pm.getPackageInfo(name, PackageManager.GET_SIGNING_CERTIFICATES);
        SigningInfo signing = info.signingInfo;
        return signing == null ? null : signing.getApkContentsSigners();
      }
      return pm.getPackageInfo(name, PackageManager.GET_SIGNATURES).signatures;
    } catch (PackageManager.NameNotFoundException | RuntimeException e) {
      return null;
    }
  }

  private static String describe(String[] packages, String[][] digests) {
    if (packages.length == 0) {
      return null;
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < packages.length; i++) {
      out.append(packages[i]);
      char separator = ' ';
      for (String digest : digests[i]) {
        out.append(separator).append(digest);
        separator = ',';
      }
      out.append('\n');
    }
    return out.toString();
  }

  private static String sha256(byte[] bytes) {
    byte[] digest;
    try {
      digest = MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing", e);
    }
    char[] hex = new char[digest.length * 2];
    for (int i = 0; i < digest.length; i++) {
      hex[2 * i] = HEX[(digest[i] >> 4) & 0xF];
      hex[2 * i + 1] = HEX[digest[i] & 0xF];
    }
    return new String(hex);
  }
}
