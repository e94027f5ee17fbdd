package dev.cetp;

import android.app.Service;
import android.content.Intent;
import android.os.IBinder;
import org.jspecify.annotations.Nullable;

/**
 * The component agents discover: an exported Service with the intent-filter action {@code
 * com.clawseed.action.TOOL_PROVIDER} and the meta-data naming the provider authority and the
 * protocol version. It is never bound; all traffic goes through {@link CetpToolProvider}.
 */
public class CetpDiscoveryService extends Service {
  @Override
  public @Nullable IBinder onBind(@Nullable Intent intent) {
    return null;
  }
}
