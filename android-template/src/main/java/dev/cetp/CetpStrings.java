package dev.cetp;

import android.content.Context;
import android.content.res.Resources;
import java.util.Collections;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The approval screens' strings: the app's string resources when present, else English.
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
    t.put("cetp_question", "Allow %1$s to read %2$s from %3$s?");
    t.put("cetp_question_tools", "Allow %1$s to use the tools of %2$s?");
    t.put("cetp_certificate", "Certificate %1$s");
    t.put("cetp_certificate_unknown", "Certificate unknown");
    t.put("cetp_shared_identity", "These apps share one identity on this phone; your answer applies to all of them.");
    t.put("cetp_duration_label", "For how long?");
    t.put("cetp_duration_hour", "1 hour");
    t.put("cetp_duration_day", "1 day");
    t.put("cetp_duration_month", "30 days");
    t.put("cetp_duration_forever", "Until I remove access");
    t.put("cetp_access_label", "How much may it see?");
    t.put("cetp_access_full", "Everything it asks for");
    t.put("cetp_access_limited", "Limited");
    t.put("cetp_access_limited_help", "Limited: %1$s shares an outline, such as titles and dates, and leaves out the most private details, such as full texts.");
    t.put("cetp_allow", "Allow");
    t.put("cetp_deny", "Don't allow");
    t.put("cetp_close", "Close");
    t.put("cetp_no_pending", "No app is waiting for your approval right now.");
    t.put("cetp_more_waiting", "Saved. %1$d more requests are waiting; open this screen again to answer them.");
    t.put("cetp_manage_button", "Apps with access");
    t.put("cetp_manage_title", "Apps and your %1$s data");
    t.put("cetp_manage_intro", "Apps that asked to read from %1$s. What they read and when is recorded only on this phone.");
    t.put("cetp_grants_header", "Allowed");
    t.put("cetp_no_grants", "No app may read your data.");
    t.put("cetp_grant_scopes", "May read %1$s");
    t.put("cetp_grant_scopes_any", "May use the tools (no specific data)");
    t.put("cetp_grant_access_full", "Full access");
    t.put("cetp_grant_access_limited", "Limited access");
    t.put("cetp_grant_terms", "%1$s \u00b7 %2$s");
    t.put("cetp_grant_until", "until %1$s");
    t.put("cetp_grant_forever", "until you remove it");
    t.put("cetp_grant_expired", "expired %1$s; it will ask again");
    t.put("cetp_history", "Last used %1$s. Calls: %2$d today, %3$d in the last 7 days.");
    t.put("cetp_history_never", "Has not used its access yet.");
    t.put("cetp_revoke", "Remove access");
    t.put("cetp_denials_header", "Declined");
    t.put("cetp_no_denials", "You have not declined any app.");
    t.put("cetp_denied_on", "Declined %1$s. It gets nothing and cannot ask again until you let it.");
    t.put("cetp_allow_again", "Let it ask again");
    t.put("cetp_request_changed", "That request changed or was already answered. Check it again.");
    t.put("cetp_save_failed", "Your choice could not be saved, so nothing changed. Try again.");
    t.put("cetp_decisions_lost", "Some earlier answers could not be read and were reset: apps you declined may ask again, and apps you allowed must be allowed again.");
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
