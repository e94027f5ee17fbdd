package dev.cetp;

import android.content.Context;
import android.content.res.Resources;
import java.util.Collections;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The approval screen's strings: the app's string resources when present, else English.
 *
 * <p>The translatable source is {@code res/values/strings.xml} of this module (names {@code
 * cetp_*}); on a device AGP merges it into the app's resources, where apps translate or override
 * it like any string. The template's Java is also compiled without aapt (no {@code R} class:
 * {@code cargo xtask host-build}, {@code android-check}), so strings are looked up by name with
 * {@link Resources#getIdentifier}; a name that is not found (a host bundle has no resources)
 * falls back to {@link #ENGLISH}, a copy of {@code strings.xml} that the suite's {@code
 * CetpStringsTest} checks entry by entry.
 */
final class CetpStrings {
  private CetpStrings() {}

  /** The English strings of {@code res/values/strings.xml}, by resource name. */
  static final Map<String, String> ENGLISH;

  static {
    Map<String, String> t = new HashMap<>();
    t.put("cetp_authorize_title", "Allow access to %1$s?");
    t.put("cetp_manage_title", "Apps and your %1$s data");
    t.put("cetp_no_pending", "No app is waiting for your approval right now.");
    t.put("cetp_request_intro", "%1$s wants to read from %2$s:");
    t.put("cetp_app_identity", "%1$s, certificate %2$s");
    t.put("cetp_unknown_certificate", "unknown");
    t.put("cetp_shared_identity", "These apps share one identity on this phone; your answer applies to all of them.");
    t.put("cetp_scope_item", "\u2022 %1$s");
    t.put("cetp_scope_any", "\u2022 its tools (no specific data)");
    t.put("cetp_duration_label", "For how long?");
    t.put("cetp_duration_hour", "1 hour");
    t.put("cetp_duration_day", "1 day");
    t.put("cetp_duration_month", "30 days");
    t.put("cetp_duration_forever", "Until I revoke it");
    t.put("cetp_access_label", "How much may it see?");
    t.put("cetp_access_full", "Everything listed above");
    t.put("cetp_access_limited", "Limited");
    t.put("cetp_access_limited_help", "Limited: %1$s leaves out the most private details, such as full texts, and shares only an outline (for example titles and dates). What exactly it leaves out is up to %1$s.");
    t.put("cetp_allow", "Allow");
    t.put("cetp_deny", "Deny");
    t.put("cetp_manage_button", "Apps with access");
    t.put("cetp_grants_header", "Allowed");
    t.put("cetp_no_grants", "No app may read your data.");
    t.put("cetp_grant_scopes", "Can read: %1$s");
    t.put("cetp_grant_scopes_any", "Can use the tools (no specific data)");
    t.put("cetp_grant_access_full", "Full access");
    t.put("cetp_grant_access_limited", "Limited access");
    t.put("cetp_grant_until", "Until %1$s");
    t.put("cetp_grant_forever", "Until you revoke it");
    t.put("cetp_grant_expired", "Expired %1$s; it will ask again");
    t.put("cetp_revoke", "Revoke");
    t.put("cetp_denials_header", "Declined");
    t.put("cetp_no_denials", "You have not declined any app.");
    t.put("cetp_denied_on", "Declined %1$s. Allow again lets it ask you next time it needs your data.");
    t.put("cetp_allow_again", "Allow again");
    t.put("cetp_request_changed", "That request changed or was already answered. Check the list again.");
    t.put("cetp_save_failed", "Your choice could not be saved, so nothing changed. Try again.");
    t.put("cetp_apex_channel", "Access requests from agent apps");
    t.put("cetp_apex_request_title", "%1$s wants to use %2$s");
    t.put("cetp_apex_request_text", "Tap to allow or deny its access to your data.");
    t.put("cetp_unavailable", "Access requests cannot be shown: this app's tool provider did not start.");
    ENGLISH = Collections.unmodifiableMap(t);
  }

  /** The string {@code name}, formatted with {@code args} (positional {@code %1$s} ...). */
  static String get(Context context, String name, Object... args) {
    int id = resourceId(context, name);
    if (id != 0) {
      try {
        return context.getString(id, args);
      } catch (RuntimeException e) {
        // A broken translation (bad format string): fall back to English below.
      }
    }
    String english = ENGLISH.get(name);
    if (english == null) {
      throw new IllegalArgumentException("no CETP string " + name);
    }
    return args.length == 0 ? english : String.format(Locale.getDefault(), english, args);
  }

  /**
   * The resource id of string {@code name}, or 0. Library resources are merged into the app's
   * resource package: that is normally the package name, but with an {@code applicationId}
   * different from the {@code namespace} it is the namespace, found through the application
   * label's resource.
   */
  private static int resourceId(Context context, String name) {
    try {
      Resources res = context.getResources();
      int id = res.getIdentifier(name, "string", context.getPackageName());
      if (id == 0) {
        int label = context.getApplicationInfo().labelRes;
        if (label != 0) {
          id = res.getIdentifier(name, "string", res.getResourcePackageName(label));
        }
      }
      return id;
    } catch (RuntimeException e) {
      return 0;
    }
  }
}
