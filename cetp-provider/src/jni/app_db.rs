//! [`AppDatabase::android`](crate::AppDatabase::android)'s reader: the template's
//! `CetpAppDatabase.query`, called once per read with the checked statement, the encoded values,
//! the row cap, a byte budget and the time left (`app_db/codec.rs` spells the bytes).
//!
//! The class is found on the loading thread in `JNI_OnLoad` (a Binder thread's `FindClass`
//! would not see the app's classes) and kept with the `JavaVM`; a template without it (older
//! than the reader) only loses this path, and every read says so.

use std::sync::OnceLock;
use std::time::Duration;

use jni::errors::Error;
use jni::objects::{JByteArray, JClass, JValue};
use jni::refs::Global;
use jni::vm::JavaVM;
use jni::{Env, jni_sig, jni_str};

use super::strings::new_string;
use crate::AppDatabase;
use crate::app_db::{SqlFailure, SqlReader, SqlRows, SqlValue, decode_reply, encode_params};
use crate::context::Deadline;

/// The most bytes of rows one read copies across JNI (the wire's answers are far smaller).
pub(crate) const MAX_REPLY_BYTES: usize = 8 << 20;

struct Java {
    vm: JavaVM,
    class: Global<JClass<'static>>,
}

static JAVA: OnceLock<Java> = OnceLock::new();

/// Keeps the VM and `dev.cetp.CetpAppDatabase`, if the template has it.
pub(super) fn prepare(env: &mut Env<'_>) -> Result<(), Error> {
    let class = match env.find_class(jni_str!("dev/cetp/CetpAppDatabase")) {
        Ok(class) => class,
        Err(_) => {
            if env.exception_check() {
                env.exception_clear();
            }
            log::info!("CETP: the template has no CetpAppDatabase; AppDatabase reads will fail");
            return Ok(());
        }
    };
    let global = env.new_global_ref(&class)?;
    env.delete_local_ref(class);
    let vm = env.get_java_vm()?;
    if JAVA.set(Java { vm, class: global }).is_err() {
        log::warn!("CETP: CetpAppDatabase registered again; keeping the first");
    }
    Ok(())
}

/// Reads through Android's SQLite, in the app's process (the template's `CetpAppDatabase`).
#[derive(Debug, Clone, Copy)]
pub struct FrameworkReader;

impl SqlReader for FrameworkReader {
    fn read(
        &self,
        name: &str,
        sql: &str,
        params: &[SqlValue],
        max_rows: usize,
        deadline: &Deadline,
    ) -> Result<SqlRows, SqlFailure> {
        let java = JAVA.get().ok_or_else(|| {
            SqlFailure::Failed(
                "Android's SQLite is not reachable: no Android runtime here, or the app's CETP template has no CetpAppDatabase".to_owned(),
            )
        })?;
        let timeout_ms = match deadline.time_left() {
            Duration::MAX => -1,
            left => i64::try_from(left.as_millis()).unwrap_or(i64::MAX),
        };
        let max_rows = i32::try_from(max_rows).unwrap_or(i32::MAX);
        let max_bytes = i32::try_from(MAX_REPLY_BYTES).unwrap_or(i32::MAX);
        let params = encode_params(params);
        let reply = java
            .vm
            .attach_current_thread(|env| -> Result<Vec<u8>, Error> {
                let name = new_string(env, name)?;
                let sql = new_string(env, sql)?;
                let params = env.byte_array_from_slice(&params)?;
                let reply = env
                    .call_static_method(
                        &java.class,
                        jni_str!("query"),
                        jni_sig!("(Ljava/lang/String;Ljava/lang/String;[BIIJ)[B"),
                        &[
                            JValue::Object(&name),
                            JValue::Object(&sql),
                            JValue::Object(&params),
                            JValue::Int(max_rows),
                            JValue::Int(max_bytes),
                            JValue::Long(timeout_ms),
                        ],
                    )?
                    .l()?;
                let reply = JByteArray::cast_local(env, reply)?;
                let bytes = env.convert_byte_array(&reply)?;
                env.delete_local_ref(reply);
                env.delete_local_ref(params);
                env.delete_local_ref(sql);
                env.delete_local_ref(name);
                Ok(bytes)
            })
            .map_err(|err| {
                log::error!("CETP: CetpAppDatabase.query failed across JNI: {err}");
                SqlFailure::Failed(
                    "the call into Android's SQLite failed (logged under the tag cetp)".to_owned(),
                )
            })?;
        decode_reply(&reply, MAX_REPLY_BYTES)
    }
}

impl AppDatabase {
    /// The app's database `name` (as Room's `databaseBuilder` or `SQLiteOpenHelper` names it,
    /// e.g. `"journal.db"`) in the app's database directory (`Context.getDatabasePath`), read
    /// through Android's SQLite. Nothing is opened here: the first query opens it read-only,
    /// and a query before the app created it answers a clear error (and the next one tries
    /// again). Feature `jni`; the template must be the SDK's (it holds `CetpAppDatabase`).
    ///
    /// # Errors
    /// `name` is empty, holds a path separator, is `.` or `..`, or holds a NUL.
    #[cfg(feature = "jni")]
    #[cfg_attr(docsrs, doc(cfg(feature = "jni")))]
    pub fn android(name: &str) -> Result<Self, String> {
        AppDatabase::with_reader(name, FrameworkReader)
    }
}
