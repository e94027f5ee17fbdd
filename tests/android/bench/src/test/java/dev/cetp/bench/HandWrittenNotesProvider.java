package dev.cetp.bench;

import android.content.ContentProvider;
import android.content.ContentValues;
import android.database.Cursor;
import android.database.sqlite.SQLiteDatabase;
import android.net.Uri;
import android.os.Bundle;
import java.io.File;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * What an app developer writes by hand when following the CETP tutorial: a ContentProvider whose
 * {@code call} switches on the method name, builds its JSON with {@code org.json} and strings,
 * validates nothing beyond what it needs to run the query and checks no caller. It keeps one
 * read-only {@link SQLiteDatabase} open on the notes sample's database and answers {@code
 * get_note} and {@code notes_between} with the same data as the sample. The benchmark's
 * baseline; not part of the SDK.
 */
public class HandWrittenNotesProvider extends ContentProvider {
  static final String AUTHORITY = "dev.cetp.bench.handwritten";

  private static final String TOOLS =
      "{\"tools\":[{\"name\":\"get_note\",\"description\":\"Fetches one note by id, with its full"
          + " text.\",\"parameters\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\":"
          + "\"integer\",\"description\":\"The note's id.\",\"minimum\":1}},\"required\":[\"id\"]}},"
          + "{\"name\":\"notes_between\",\"description\":\"Lists the notes written between two"
          + " days.\",\"parameters\":{\"type\":\"object\",\"properties\":{\"from\":{\"type\":"
          + "\"string\",\"format\":\"date\"},\"to\":{\"type\":\"string\",\"format\":\"date\"},"
          + "\"limit\":{\"type\":\"integer\"}},\"required\":[\"from\",\"to\"]}}]}";
  private static final String INFO =
      "{\"name\":\"Notes\",\"description\":\"The user's notes\",\"version\":\"1\"}";

  private static final String TAGS =
      "(SELECT group_concat(tag, ',') FROM (SELECT tag FROM tags WHERE note_id = n.id ORDER BY"
          + " tag))";

  private volatile SQLiteDatabase db;

  @Override
  public boolean onCreate() {
    return true;
  }

  private SQLiteDatabase db() {
    SQLiteDatabase open = db;
    if (open == null) {
      synchronized (this) {
        if (db == null) {
          File file = new File(getContext().getFilesDir(), "notes.db");
          db = SQLiteDatabase.openDatabase(file.getPath(), null, SQLiteDatabase.OPEN_READONLY);
        }
        open = db;
      }
    }
    return open;
  }

  @Override
  public Bundle call(String method, String arg, Bundle extras) {
    try {
      switch (method) {
        case "list_tools":
          return success(TOOLS);
        case "get_provider_info":
          return success(INFO);
        case "execute_tool":
          return execute(extras.getString("tool_name"), new JSONObject(extras.getString("args")));
        default:
          return error("TOOL_NOT_FOUND", "Unknown method " + method);
      }
    } catch (JSONException | RuntimeException e) {
      return error("INTERNAL_ERROR", String.valueOf(e.getMessage()));
    }
  }

  private Bundle execute(String tool, JSONObject args) throws JSONException {
    switch (tool) {
      case "get_note":
        return getNote(args.getLong("id"));
      case "notes_between":
        return notesBetween(args.getString("from"), args.getString("to"), args.optInt("limit", 50));
      default:
        return error("TOOL_NOT_FOUND", "Unknown tool " + tool);
    }
  }

  private Bundle getNote(long id) throws JSONException {
    try (Cursor c =
        db().rawQuery(
            "SELECT n.id, n.title, n.created, " + TAGS + ", n.body FROM notes n WHERE n.id = ?",
            new String[] {Long.toString(id)})) {
      if (!c.moveToFirst()) {
        return error("INVALID_ARGS", "No note with id " + id);
      }
      JSONObject note = summary(c);
      note.put("body", c.getString(4));
      return success(note.toString());
    }
  }

  private Bundle notesBetween(String from, String to, int limit) throws JSONException {
    if (from.compareTo(to) > 0) {
      return error("INVALID_ARGS", "from is after to");
    }
    String end = to + "T99";
    JSONObject out = new JSONObject();
    try (Cursor c =
        db().rawQuery(
            "SELECT count(*) FROM notes WHERE created >= ? AND created < ?",
            new String[] {from, end})) {
      c.moveToFirst();
      out.put("total", c.getLong(0));
    }
    JSONArray notes = new JSONArray();
    try (Cursor c =
        db().rawQuery(
            "SELECT n.id, n.title, n.created, "
                + TAGS
                + " FROM notes n WHERE n.created >= ? AND n.created < ? ORDER BY n.created, n.id"
                + " LIMIT ?",
            new String[] {from, end, Integer.toString(limit)})) {
      while (c.moveToNext()) {
        notes.put(summary(c));
      }
    }
    out.put("notes", notes);
    return success(out.toString());
  }

  private static JSONObject summary(Cursor c) throws JSONException {
    JSONObject note = new JSONObject();
    note.put("id", c.getLong(0));
    note.put("title", c.getString(1));
    note.put("created", c.getString(2));
    JSONArray tags = new JSONArray();
    String joined = c.getString(3);
    if (joined != null) {
      for (String tag : joined.split(",")) {
        tags.put(tag);
      }
    }
    note.put("tags", tags);
    return note;
  }

  private static Bundle success(String data) {
    Bundle b = new Bundle();
    b.putString("status", "success");
    b.putString("data", data);
    return b;
  }

  private static Bundle error(String code, String message) {
    Bundle b = new Bundle();
    b.putString("status", "error");
    b.putString("error_code", code);
    b.putString("error_message", message);
    return b;
  }

  @Override
  public Cursor query(Uri uri, String[] p, String s, String[] a, String o) {
    return null;
  }

  @Override
  public String getType(Uri uri) {
    return null;
  }

  @Override
  public Uri insert(Uri uri, ContentValues values) {
    return null;
  }

  @Override
  public int delete(Uri uri, String s, String[] a) {
    return 0;
  }

  @Override
  public int update(Uri uri, ContentValues values, String s, String[] a) {
    return 0;
  }
}
