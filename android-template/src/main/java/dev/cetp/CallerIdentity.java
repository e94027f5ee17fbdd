package dev.cetp;

import android.content.Context;
import android.content.pm.PackageInfo;
import android.content.pm.PackageManager;
import android.content.pm.Signature;
import android.content.pm.SigningInfo;
import android.os.Build;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Who is calling, as the platform reports it: a UID, every package installed under it, and the
 * SHA-256 digests of each package's signing certificates. Handed to the Rust provider with every
 * call; authorization decisions are made there.
 */
public final class CallerIdentity {
  private static final char[] HEX = "0123456789abcdef".toCharArray();
  private static final String[] NONE = new String[0];
  private static final AtomicLong TOKENS = new AtomicLong();

  /** The calling UID ({@code Binder.getCallingUid()}), or -1 when unknown. */
  public final int uid;

  /** The packages under {@link #uid}; empty when the PackageManager knows none. */
  public final String[] packages;

  /**
   * {@code certificateDigests[i]}: lower-case hex SHA-256 digests of the certificates
   * {@code packages[i]} is signed with now; empty when they cannot be read.
   */
  public final String[][] certificateDigests;

  /**
   * A number no other identity in this process has. The native library reads the arrays of an
   * identity once per Binder thread and then knows it by this token; an identity read again
   * after a package change is a new object with a new token, so nothing stale is ever reused.
   */
  public final long token;

  /** An identity as given; the arrays are kept, not copied. */
  public CallerIdentity(int uid, String[] packages, String[][] certificateDigests) {
    this.uid = uid;
    this.packages = packages;
    this.certificateDigests = certificateDigests;
    this.token = TOKENS.incrementAndGet();
  }

  /**
   * The identity of {@code uid}: its packages and their signing-certificate digests. Read from
   * the PackageManager of {@code context} on a UID's first call, then served from a process-wide
   * cache that package broadcasts invalidate ({@link CallerIdentityCache}; why that is complete:
   * {@code docs/caller-identity.md}), so a known caller costs no PackageManager query. Every host
   * of the template resolves its callers here. Never throws; what cannot be read is left out (a
   * caller with no packages is one no policy but the open one admits).
   */
  public static CallerIdentity resolve(Context context, int uid) {
    if (context == null) {
      return new CallerIdentity(uid, NONE, new String[0][]);
    }
    return CallerIdentityCache.get(context, uid, CallerIdentity::load);
  }

  /**
   * Whether the identity can be reused until a package broadcast: at least one package, each with
   * at least one certificate digest. Anything less (a UID without visible packages, a package the
   * PackageManager would not describe) is read again on the next call.
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

  /** Reads the identity of {@code uid} from the PackageManager, without the cache. */
  static CallerIdentity load(Context context, int uid) {
    PackageManager pm = context.getPackageManager();
    String[] packages;
    try {
      packages = pm.getPackagesForUid(uid);
    } catch (RuntimeException e) {
      packages = null;
    }
    if (packages == null) {
      packages = NONE;
    }
    String[][] digests = new String[packages.length][];
    for (int i = 0; i < packages.length; i++) {
      digests[i] = digests(signers(pm, packages[i]));
    }
    return new CallerIdentity(uid, packages, digests);
  }

  private static String[] digests(Signature[] signers) {
    if (signers == null) {
      return NONE;
    }
    int count = 0;
    String[] out = new String[signers.length];
    for (Signature signer : signers) {
      if (signer != null) {
        out[count++] = sha256(signer.toByteArray());
      }
    }
    if (count == out.length) {
      return out;
    }
    String[] trimmed = new String[count];
    System.arraycopy(out, 0, trimmed, 0, count);
    return trimmed;
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
