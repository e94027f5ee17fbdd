package androidx.test.platform.ui;

/** Thrown when injecting an input event into another app's window is refused. */
public final class InjectEventSecurityException extends Exception {
  public InjectEventSecurityException(String message) {
    super(message);
  }

  public InjectEventSecurityException(Throwable cause) {
    super(cause);
  }

  public InjectEventSecurityException(String message, Throwable cause) {
    super(message, cause);
  }
}
