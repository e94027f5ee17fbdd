package dev.cetp;

import android.app.Activity;
import android.os.Bundle;
import android.view.View;
import android.widget.TextView;
import org.jspecify.annotations.Nullable;

/**
 * Apps with access: every allowed app with what it may read, how much, until when and how it
 * used its access, every declined app, Remove access and Let it ask again.
 *
 * <p>Not exported: only this app opens it (the consent dialog's button, {@link
 * CetpScreens#grantsIntent}), so no other app can put it in front of the user to coax a tap. The
 * state is read, and changes are saved, on {@link CetpAdmin}'s background thread; the actions are
 * disabled while one is being saved, and the screen stays open and shows the new state.
 */
public class CetpGrantsActivity extends Activity implements CetpGrantsScreen.Actions {
  private CetpGrantsScreen screen;
  /** An action is being saved. */
  private boolean busy;
  /** A notice for the next render (an action failed), or null. */
  private String notice;

  @Override
  protected void onCreate(@Nullable Bundle savedInstanceState) {
    super.onCreate(savedInstanceState);
    // The runtime starts on the first admin call (off the main thread), which needs this
    // app's context.
    CetpRuntime.register(this, null, null);
    screen = new CetpGrantsScreen(this, this);
    setContentView(R.layout.cetp_loading);
    refresh();
  }

  @Override
  protected void onRestart() {
    super.onRestart();
    if (!busy) {
      refresh();
    }
  }

  private void refresh() {
    CetpAdmin.state(CetpAdmin.locale(this), -1, this::show);
  }

  private void show(CetpAdmin.Reply reply) {
    if (isFinishing() || isDestroyed()) {
      return;
    }
    busy = false;
    String shown = notice;
    notice = null;
    if (reply.state == null || !reply.state.storeOpen) {
      setContentView(R.layout.cetp_consent_empty);
      ((TextView) findViewById(R.id.cetp_empty)).setText(R.string.cetp_unavailable);
      findViewById(R.id.cetp_manage).setVisibility(View.GONE);
      findViewById(R.id.cetp_close).setOnClickListener(v -> finish());
      return;
    }
    screen.show(reply.state, shown, reply.decisionsLost);
  }

  @Override
  public void revoke(String pkg, @Nullable String certificate) {
    if (start()) {
      CetpAdmin.revoke(CetpAdmin.locale(this), pkg, certificate, this::afterChange);
    }
  }

  @Override
  public void clearDenial(String pkg, @Nullable String certificate) {
    if (start()) {
      CetpAdmin.clearDenial(CetpAdmin.locale(this), pkg, certificate, this::afterChange);
    }
  }

  private boolean start() {
    if (busy) {
      return false;
    }
    busy = true;
    screen.setBusy(true);
    return true;
  }

  /** The screen stays open and shows the state after the change. */
  private void afterChange(CetpAdmin.Reply reply) {
    if (!reply.ok) {
      notice =
          getString(reply.requestChanged() ? R.string.cetp_request_changed : R.string.cetp_save_failed);
    }
    if (reply.state != null) {
      show(reply);
    } else {
      refresh();
    }
  }
}
