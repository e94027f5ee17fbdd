package dev.cetp;

import android.os.ParcelFileDescriptor;
import android.util.Log;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;

/**
 * The descriptors of CETP v2 large results ({@code result_fd}). The library writes a result
 * over the inline limit to a file of the app's cache directory and names it in the reply
 * ({@link Wire#TAG_RESULT_FILE}); {@link #open} opens it read-only and unlinks it at once, so
 * the descriptor is the only way to the bytes and Java copies none of them.
 *
 * <p>Binder writes a duplicate of the descriptor into the reply, but the Bundle is written
 * without {@code PARCELABLE_WRITE_RETURN_VALUE}, so the provider's own descriptor stays open
 * after the reply left. Each Binder thread keeps the one its last reply carried and closes it
 * when it serves its next call (that reply was written before the thread could take another
 * call); a reply that could not be made closes it at once.
 */
final class CetpResultFiles {
  private CetpResultFiles() {}

  /** The descriptor this thread's last reply carried, until the thread's next call. */
  private static final ThreadLocal<ParcelFileDescriptor> LAST_REPLY = new ThreadLocal<>();

  /**
   * Opens the file at {@code path} read-only and unlinks it, whether or not it opened.
   *
   * @throws FileNotFoundException when it cannot be opened
   */
  static ParcelFileDescriptor open(String path) throws FileNotFoundException {
    File file = new File(path);
    try {
      return ParcelFileDescriptor.open(file, ParcelFileDescriptor.MODE_READ_ONLY);
    } finally {
      if (!file.delete() && file.exists()) {
        Log.w(CetpRuntime.TAG, "CETP v2: a large result's file could not be unlinked");
      }
    }
  }

  /** Unlinks the file at {@code path} of a reply that was not made. */
  static void discard(String path) {
    // If it cannot be removed now, the library's next process removes it (its sweep).
    boolean removed = new File(path).delete();
    if (!removed) {
      Log.w(CetpRuntime.TAG, "CETP v2: a large result's file could not be unlinked");
    }
  }

  /** Records {@code descriptor} as the one this thread's reply carries. */
  static void handedOut(ParcelFileDescriptor descriptor) {
    closeLastReply();
    LAST_REPLY.set(descriptor);
  }

  /** Closes the descriptor this thread's previous reply carried, if any. */
  static void closeLastReply() {
    ParcelFileDescriptor last = LAST_REPLY.get();
    if (last != null) {
      LAST_REPLY.remove();
      close(last);
    }
  }

  /** Closes {@code descriptor}, which may be null. */
  static void close(ParcelFileDescriptor descriptor) {
    if (descriptor == null) {
      return;
    }
    try {
      descriptor.close();
    } catch (IOException | RuntimeException e) {
      // Closing a read-only descriptor reports nothing the reply could act on.
    }
  }
}
