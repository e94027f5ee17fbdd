package dev.cetp;

import android.content.Context;
import android.database.Cursor;
import android.database.sqlite.SQLiteCursor;
import android.database.sqlite.SQLiteCursorDriver;
import android.database.sqlite.SQLiteDatabase;
import android.database.sqlite.SQLiteException;
import android.database.sqlite.SQLiteQuery;
import android.os.CancellationSignal;
import android.os.OperationCanceledException;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs one read on a database the app owns, through Android's own SQLite (the library Room
 * uses), for {@code cetp_provider::AppDatabase}: Rust checked the statement, chose the row cap,
 * the byte budget and the time left; this class only opens, binds, runs and copies. Values cross
 * JNI as one {@code byte[]} each way, in the format {@code cetp-provider/src/app_db/codec.rs}
 * spells.
 *
 * <p>The database is opened with {@code OPEN_READONLY} (never created, never migrated), in the
 * app's database directory ({@link Context#getDatabasePath}), once per file, and kept open. A
 * call's time left cancels its statement through a {@link CancellationSignal}, fired by one
 * daemon thread shared by every call (no thread per call).
 */
final class CetpAppDatabase {
  private CetpAppDatabase() {}

  // Reply statuses and value tags (codec.rs).
  private static final int ROWS = 0;
  private static final int MISSING = 1;
  private static final int CANCELLED = 2;
  private static final int FAILED = 3;
  private static final int TOO_LARGE = 4;
  private static final int NULL = 0;
  private static final int INTEGER = 1;
  private static final int REAL = 2;
  private static final int TEXT = 3;
  private static final int BLOB = 4;

  /** The read-only connections, by absolute path, for {@link #owner}. */
  private static final ConcurrentHashMap<String, SQLiteDatabase> OPEN = new ConcurrentHashMap<>();

  private static volatile Context owner;

  /** Cancels statements at their deadlines: one daemon thread, started on first use. */
  private static final class Watchdog {
    static final ScheduledThreadPoolExecutor EXECUTOR = newExecutor();

    private static ScheduledThreadPoolExecutor newExecutor() {
      ScheduledThreadPoolExecutor executor =
          new ScheduledThreadPoolExecutor(
              1,
              r -> {
                Thread t = new Thread(r, "cetp-sqlite-deadline");
                t.setDaemon(true);
                return t;
              });
      executor.setRemoveOnCancelPolicy(true);
      return executor;
    }
  }

  /**
   * Runs {@code sql} on the app's database {@code name} with {@code params} bound in order;
   * returns the status and at most {@code maxRows} rows, or {@code TOO_LARGE} once they exceed
   * {@code maxBytes}. {@code timeoutMs} below zero: no deadline.
   */
  static byte[] query(
      String name, String sql, byte[] params, int maxRows, int maxBytes, long timeoutMs) {
    Context app = CetpRuntime.startedApplication();
    if (app == null) {
      return failure(FAILED, "IllegalStateException: the CETP runtime has not started");
    }
    SQLiteDatabase db;
    try {
      db = open(app, name);
    } catch (SQLiteException e) {
      return failure(FAILED, describe(e));
    }
    if (db == null) {
      return failure(MISSING, null);
    }
    CancellationSignal signal = new CancellationSignal();
    ScheduledFuture<?> timer =
        timeoutMs < 0 ? null : Watchdog.EXECUTOR.schedule(signal::cancel, timeoutMs, TimeUnit.MILLISECONDS);
    try (Cursor cursor =
        db.rawQueryWithFactory(
            (database, driver, editTable, query) -> bind(driver, editTable, query, params),
            sql,
            null,
            null,
            signal)) {
      return rows(cursor, maxRows, maxBytes);
    } catch (OperationCanceledException e) {
      return failure(CANCELLED, null);
    } catch (SQLiteException | IllegalArgumentException | IllegalStateException e) {
      return signal.isCanceled() ? failure(CANCELLED, null) : failure(FAILED, describe(e));
    } finally {
      if (timer != null) {
        timer.cancel(false);
      }
    }
  }

  /** The open connection to {@code name}, opened read-only now if needed; null: no such file. */
  private static SQLiteDatabase open(Context app, String name) {
    if (owner != app) {
      synchronized (OPEN) {
        if (owner != app) {
          // Another application (a new test's): its files are elsewhere.
          for (SQLiteDatabase db : OPEN.values()) {
            db.close();
          }
          OPEN.clear();
          owner = app;
        }
      }
    }
    File file = app.getDatabasePath(name);
    String path = file.getAbsolutePath();
    if (!file.isFile()) {
      // Never created, or deleted by the app: do not keep reading an unlinked file.
      SQLiteDatabase gone = OPEN.remove(path);
      if (gone != null) {
        gone.close();
      }
      return null;
    }
    SQLiteDatabase db = OPEN.get(path);
    if (db != null && db.isOpen()) {
      return db;
    }
    synchronized (OPEN) {
      db = OPEN.get(path);
      if (db == null || !db.isOpen()) {
        db = SQLiteDatabase.openDatabase(path, null, SQLiteDatabase.OPEN_READONLY);
        OPEN.put(path, db);
      }
      return db;
    }
  }

  /** Binds the encoded values to the query's parameters, 1 upwards. */
  private static Cursor bind(
      SQLiteCursorDriver driver, String editTable, SQLiteQuery query, byte[] params) {
    ByteBuffer in = ByteBuffer.wrap(params);
    int index = 1;
    while (in.hasRemaining()) {
      int tag = in.get();
      switch (tag) {
        case NULL:
          query.bindNull(index);
          break;
        case INTEGER:
          query.bindLong(index, in.getLong());
          break;
        case REAL:
          query.bindDouble(index, in.getDouble());
          break;
        case TEXT:
          query.bindString(index, new String(bytes(in), StandardCharsets.UTF_8));
          break;
        case BLOB:
          query.bindBlob(index, bytes(in));
          break;
        default:
          throw new IllegalArgumentException("unknown value tag " + tag);
      }
      index++;
    }
    return new SQLiteCursor(driver, editTable, query);
  }

  private static byte[] bytes(ByteBuffer in) {
    byte[] out = new byte[in.getInt()];
    in.get(out);
    return out;
  }

  private static byte[] rows(Cursor cursor, int maxRows, int maxBytes) {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(buffer);
    try {
      out.writeByte(ROWS);
      String[] columns = cursor.getColumnNames();
      out.writeInt(columns.length);
      for (String column : columns) {
        writeBytes(out, column.getBytes(StandardCharsets.UTF_8));
      }
      int count = 0;
      while (count < maxRows && cursor.moveToNext()) {
        for (int i = 0; i < columns.length; i++) {
          switch (cursor.getType(i)) {
            case Cursor.FIELD_TYPE_NULL:
              out.writeByte(NULL);
              break;
            case Cursor.FIELD_TYPE_INTEGER:
              out.writeByte(INTEGER);
              out.writeLong(cursor.getLong(i));
              break;
            case Cursor.FIELD_TYPE_FLOAT:
              out.writeByte(REAL);
              out.writeDouble(cursor.getDouble(i));
              break;
            case Cursor.FIELD_TYPE_STRING:
              out.writeByte(TEXT);
              writeBytes(out, cursor.getString(i).getBytes(StandardCharsets.UTF_8));
              break;
            default:
              out.writeByte(BLOB);
              writeBytes(out, cursor.getBlob(i));
              break;
          }
        }
        count++;
        if (out.size() > maxBytes) {
          return failure(TOO_LARGE, null);
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException(e); // a ByteArrayOutputStream does not fail
    }
    return buffer.toByteArray();
  }

  private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  /** A failure reply; {@code why} is the exception's class and SQLite's words, no values. */
  private static byte[] failure(int status, String why) {
    if (why == null) {
      return new byte[] {(byte) status};
    }
    byte[] text = why.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(5 + text.length).put((byte) status).putInt(text.length).put(text).array();
  }

  /**
   * The exception's class and SQLite's message up to where Android appends the statement: the
   * statement is the app's own text, and bound values never appear in it.
   */
  private static String describe(Exception e) {
    String message = e.getMessage();
    if (message == null) {
      return e.getClass().getSimpleName();
    }
    int cut = message.indexOf(" (code ");
    return e.getClass().getSimpleName() + ": " + (cut < 0 ? message : message.substring(0, cut));
  }
}
