package dev.cetp.testkit.internal;

import android.content.ContentResolver;
import android.content.Context;
import android.content.Intent;
import android.content.pm.PackageManager;
import android.content.pm.ResolveInfo;
import android.content.pm.ServiceInfo;
import android.net.Uri;
import android.os.Bundle;
import android.os.Parcel;
import android.os.ParcelFileDescriptor;
import dev.cetp.testkit.CallForm;
import dev.cetp.testkit.ToolReply;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.robolectric.RuntimeEnvironment;

/**
 * How an agent's CETP v1 calls travel, written from the wire description (it shares no code with
 * the SDK, only the words of the template's {@code Wire.java}, compiled into the kit as {@link
 * Wire}): discovery through {@code queryIntentServices} + meta-data, calls through {@code
 * ContentResolver.call} in both the authority form (API 29+, runs more real framework code) and
 * the {@code content://} Uri form (what the ClawSeed client uses). Every reply Bundle goes through a
 * {@link Parcel} before it is read, because Robolectric otherwise hands the provider's own Bundle
 * object to the caller and a non-parcelable reply would go unnoticed.
 */
public final class CetpTransport {
  /** One discovered provider. */
  public static final class Discovered {
    /** The package of the discovery Service. */
    public final String packageName;
    /** The discovery Service's class. */
    public final String serviceClass;
    /** The authority to call. */
    public final String authority;
    /** {@code metaData.getInt(version, 1)}, as an agent reads it. */
    public final int version;
    /** The raw meta-data value (an Integer when the manifest was compiled correctly). */
    public final Object rawVersion;

    Discovered(
        String packageName, String serviceClass, String authority, int version, Object rawVersion) {
      this.packageName = packageName;
      this.serviceClass = serviceClass;
      this.authority = authority;
      this.version = version;
      this.rawVersion = rawVersion;
    }

    @Override
    public String toString() {
      return packageName + "/" + serviceClass + " authority=" + authority + " v" + version;
    }
  }

  private final Context context;
  private final CallForm defaultForm;

  /** A transport from the test application's context, calling in the {@code content://} Uri form. */
  public CetpTransport() {
    this(RuntimeEnvironment.getApplication(), CallForm.URI);
  }

  /** A transport calling from {@code context} in {@code defaultForm}. */
  public CetpTransport(Context context, CallForm defaultForm) {
    this.context = Objects.requireNonNull(context);
    this.defaultForm = Objects.requireNonNull(defaultForm);
  }

  /** Every service answering the CETP action that carries an authority meta-data entry. */
  @SuppressWarnings("deprecation") // Bundle.get(String): we want the raw, untyped value.
  public List<Discovered> discover() {
    PackageManager pm = context.getPackageManager();
    List<ResolveInfo> found =
        pm.queryIntentServices(new Intent(Wire.DISCOVERY_ACTION), PackageManager.GET_META_DATA);
    List<Discovered> out = new ArrayList<>();
    for (ResolveInfo ri : found) {
      ServiceInfo si = ri.serviceInfo;
      if (si == null || si.metaData == null) {
        continue;
      }
      String authority = si.metaData.getString(Wire.META_AUTHORITY);
      if (authority == null || authority.isEmpty()) {
        continue;
      }
      out.add(
          new Discovered(
              si.packageName,
              si.name,
              authority,
              si.metaData.getInt(Wire.META_VERSION, 1),
              si.metaData.get(Wire.META_VERSION)));
    }
    return out;
  }

  /** {@code list_tools}, in the default form. */
  public ToolReply listTools(String authority) {
    return call(authority, Wire.METHOD_LIST_TOOLS, new Bundle());
  }

  /** {@code get_provider_info}, in the default form. */
  public ToolReply getProviderInfo(String authority) {
    return call(authority, Wire.METHOD_GET_PROVIDER_INFO, new Bundle());
  }

  /** {@code args} is JSON text (may be null: the extra is then absent), as is {@code requestId}. */
  public ToolReply executeTool(String authority, String tool, String args, String requestId) {
    Bundle extras = new Bundle();
    extras.putString(Wire.EXTRA_TOOL_NAME, tool);
    if (args != null) {
      extras.putString(Wire.EXTRA_ARGS, args);
    }
    if (requestId != null) {
      extras.putString(Wire.EXTRA_REQUEST_ID, requestId);
    }
    return call(authority, Wire.METHOD_EXECUTE_TOOL, extras);
  }

  /** One call in the default form (see {@link #call(CallForm, String, String, Bundle)}). */
  public ToolReply call(String authority, String method, Bundle extras) {
    return call(defaultForm, authority, method, extras);
  }

  /**
   * One call in the chosen form. The request extras are parcelled too (as Binder would), the reply
   * is parcelled and read back with this class's loader. A null reply becomes {@link
   * ToolReply#isNull()}; exceptions (SecurityException, unknown authority) propagate.
   */
  public ToolReply call(CallForm form, String authority, String method, Bundle extras) {
    ContentResolver resolver = context.getContentResolver();
    Bundle sent = extras == null ? null : roundTrip(extras);
    Bundle reply;
    switch (form) {
      case AUTHORITY:
        reply = resolver.call(authority, method, null, sent);
        break;
      case URI:
        reply = resolver.call(Uri.parse("content://" + authority), method, null, sent);
        break;
      default:
        throw new AssertionError(form);
    }
    Bundle copy = reply == null ? null : roundTrip(reply);
    if (reply != null) {
      releaseDescriptors(reply);
    }
    return ToolReply.of(copy);
  }

  /**
   * Closes the provider's own descriptors in {@code reply} once it was parcelled, as Binder's
   * copy makes them irrelevant to the agent: the reply carries duplicates. Under Robolectric a
   * parcelled descriptor becomes readable on the receiving side only once the sender's is
   * closed, which this does in place of the transaction's end.
   */
  @SuppressWarnings("deprecation") // Bundle.get(String): any type
  private static void releaseDescriptors(Bundle reply) {
    for (String key : reply.keySet()) {
      Object value = reply.get(key);
      if (value instanceof ParcelFileDescriptor) {
        try {
          ((ParcelFileDescriptor) value).close();
        } catch (IOException e) {
          throw new AssertionError("the provider's descriptor " + key + " cannot be closed", e);
        }
      }
    }
  }

  /**
   * Writes {@code bundle} into a Parcel and reads a new Bundle back (fully unparcelled, so a value
   * that cannot be read fails here rather than later).
   */
  public static Bundle roundTrip(Bundle bundle) {
    Parcel parcel = Parcel.obtain();
    try {
      parcel.writeBundle(bundle);
      parcel.setDataPosition(0);
      Bundle copy = parcel.readBundle(CetpTransport.class.getClassLoader());
      if (parcel.dataAvail() != 0) {
        throw new IllegalStateException(parcel.dataAvail() + " bytes left after readBundle");
      }
      Objects.requireNonNull(copy, "readBundle returned null").size(); // forces unparcel
      return copy;
    } finally {
      parcel.recycle();
    }
  }
}
