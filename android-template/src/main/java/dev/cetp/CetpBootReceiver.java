package dev.cetp;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.util.Log;

/**
 * Optional: receives {@code BOOT_COMPLETED} so that the app's process (and with it the
 * ContentProvider, which the platform creates before any receiver runs) is started after boot.
 * CETP v1 §3.3 suggests it because some ROMs (MIUI, ColorOS) refuse to start a provider process
 * on demand. Declare it in the app manifest to use it (see the template README).
 */
public class CetpBootReceiver extends BroadcastReceiver {
  @Override
  public void onReceive(Context context, Intent intent) {
    if (Intent.ACTION_BOOT_COMPLETED.equals(intent.getAction())) {
      Log.i(CetpRuntime.TAG, "CETP provider process started after boot");
    }
  }
}
