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
import org.jspecify.annotations.Nullable;

/**
 * Who is calling, as the platform reports it: a UID, every package installed under it, and the
 * SHA-256 digests of each package's signing certificates. Handed to the Rust provider with every
 * call; authorization decisions are made there.
 */
public final class CallerIdentity {
  private static final char[] HEX = "0123456789abcdef".toCharArray();
  private static final String[] NONE = new String[0];

  /**
   * The epoch of this copy of the class, from the native library ({@link #beginEpoch}); 0 until
   * then, and while it is 0 every identity's token is 0.
   */
  private static volatile long epoch;

  /** The next token: {@code epoch << 32} plus how many identities this epoch has made. */
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
   * A number no other identity has: {@code epoch << 32 | n}, where the epoch is one the native
   * library handed to this copy of the class and to no other ({@link #beginEpoch}) and {@code n}
   * counts this copy's identities. The library reads the arrays of an identity once per Binder
   * thread and then knows it by this token (and the UID it was read with); an identity read again
   * after a package change is a new object with a new token, so nothing stale is ever reused.
   * Two class loaders holding the template's classes (each counting from 1) never share one. 0
   * (before the library gave an epoch, or once a count runs out) means "read me every time".
   */
  public final long token;

  /** An identity as given; the arrays are kept, not copied. */
  public CallerIdentity(int uid, String[] packages, String[][] certificateDigests) {
    this.uid = uid;
    this.packages = packages;
    this.certificateDigests = certificateDigests;
    this.token = nextToken();
  }

  /**
   * Starts counting tokens in {@code next}, an epoch from the native library ({@code
   * NativeBridge.tokenEpoch()}); one outside {@code 1..Integer.MAX_VALUE} (none was left, or no
   * library gave one) leaves every new token 0. Tokens made earlier stay valid: theirs is an
   * older epoch no one else holds.
   */
  static void beginEpoch(long next) {
    long valid = next >= 1 && next <= Integer.MAX_VALUE ? next : 0;
    epoch = valid;
    TOKENS.set(valid << 32);
  }

  /**
   * The next token of the current epoch, or 0. Lock-free: a token whose upper half is not the
   * current epoch (made while {@link #beginEpoch} ran, or a count past 32 bits that would spill
   * into the next epoch) is given up as 0 rather than risk naming someone else's identity.
   */
  private static long nextToken() {
    long current = epoch;
    long token = TOKENS.incrementAndGet();
    return current != 0 && (token >>> 32) == current ? token : 0;
  }

  /**
   * The identity of {@code uid}: its packages and their signing-certificate digests. Read from
   * the PackageManager of {@code context} on a UID's first call, then served from a process-wide
   * cache that package broadcasts invalidate ({@link CallerIdentityCache}; why that is complete:
   * {@code docs/caller-identity.md}), so a known caller costs no PackageManager query. Every host
   * of the template resolves its callers here. Never throws; what cannot be read is left out (a
   * caller with no packages is one no policy but the open one admits).
   */
  public static CallerIdentity resolve(@Nullable Context context, int uid) {
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
