//! The JNI layer: `JNI_OnLoad` registration and the two native methods of `dev.cetp.NativeBridge`.
//!
//! Every native method runs under `EnvUnowned::with_env` (which catches panics) and resolves
//! errors with [`ClearAndLog`], so no panic crosses into the JVM and no exception is left pending:
//! Java receives `null` on a bridge failure and answers `INTERNAL_ERROR` itself.

use std::ffi::c_void;
use std::sync::OnceLock;

use jni::errors::{Error, ErrorPolicy};
use jni::objects::{JClass, JObjectArray, JString};
use jni::refs::Global;
use jni::sys::{jboolean, jint};
use jni::vm::JavaVM;
use jni::{Env, NativeMethod, jni_str, native_method};

use super::caller::caller_from_java;
use super::mutf8::decode_lossy;
use super::runtime::panic_text;
use crate::provider::Extras;
use crate::wire::{self, ErrorCode, Response};

/// What call-time code needs from the JVM, created on the loading thread in `JNI_OnLoad`.
struct JavaSide {
    keys: Vec<(&'static str, Global<JString<'static>>)>,
}

static JAVA: OnceLock<JavaSide> = OnceLock::new();

const METHODS: &[NativeMethod] = &[
    native_method! {
        static fn native_init(files_dir: JString, package_name: JString) -> JString,
        name = "init",
        error_policy = ClearAndLog,
    },
    native_method! {
        static fn native_call(
            method: JString,
            arg: JString,
            has_extras: jboolean,
            tool_name: JString,
            args: JString,
            request_id: JString,
            calling_uid: jint,
            caller_packages: JString,
        ) -> JString[],
        name = "call",
        error_policy = ClearAndLog,
    },
    native_method! {
        static fn native_admin(request: JString) -> JString,
        name = "admin",
        error_policy = ClearAndLog,
    },
];

/// Registers the natives on `dev.cetp.NativeBridge` and caches the key strings and the `String[]`
/// class. Runs on the thread that called `System.loadLibrary`, whose class loader can see the
/// app's classes (a Binder thread's `FindClass` could not).
pub(super) fn load(vm: *mut c_void) -> Result<(), Error> {
    // Safety: the JVM passes JNI_OnLoad a valid JavaVM pointer.
    let vm = unsafe { JavaVM::from_raw(vm.cast()) };
    vm.attach_current_thread(|env| -> Result<(), Error> {
        let class = env.find_class(jni_str!("dev/cetp/NativeBridge"))?;
        // Safety: `native_method!` checked every function against its JNI signature, and both
        // are declared `static` here and in NativeBridge.java.
        unsafe { env.register_native_methods(&class, METHODS)? };
        let mut keys = Vec::with_capacity(wire::RESPONSE_KEYS.len());
        // Interned once as global Java strings, so a reply creates only its values.
        for key in wire::RESPONSE_KEYS {
            let local = JString::from_str(env, key)?;
            keys.push((key, env.new_global_ref(&local)?));
            env.delete_local_ref(local);
        }
        // Resolves and caches java.lang.String for `String[]` replies while the loader is right.
        let warm = JObjectArray::<JString>::new(env, 0, JString::null())?;
        env.delete_local_ref(warm);
        if JAVA.set(JavaSide { keys }).is_err() {
            log::warn!("CETP native bridge registered again; keeping the first key cache");
        }
        Ok(())
    })?;
    log::debug!("CETP natives registered on dev.cetp.NativeBridge");
    Ok(())
}

/// `static native String init(String filesDir, String packageName)`: null when the provider
/// started, else why not.
fn native_init<'local>(
    env: &mut Env<'local>,
    _class: JClass<'local>,
    files_dir: JString<'local>,
    package_name: JString<'local>,
) -> Result<JString<'local>, Error> {
    let files_dir = read(env, &files_dir)?.unwrap_or_default();
    let package_name = read(env, &package_name)?.unwrap_or_default();
    let outcome = match super::runtime() {
        Some(runtime) => runtime.init(&files_dir, &package_name),
        None => Err("the CETP runtime is missing: JNI_OnLoad did not run".to_owned()),
    };
    match outcome {
        Ok(()) => Ok(JString::null()),
        Err(reason) => JString::from_str(env, reason),
    }
}

/// `static native String[] call(...)`: the reply as flat key/value pairs, or null if the bridge
/// itself failed.
#[allow(clippy::too_many_arguments)] // One JNI crossing per call: everything comes at once.
fn native_call<'local>(
    env: &mut Env<'local>,
    _class: JClass<'local>,
    method: JString<'local>,
    arg: JString<'local>,
    has_extras: jboolean,
    tool_name: JString<'local>,
    args: JString<'local>,
    request_id: JString<'local>,
    calling_uid: jint,
    caller_packages: JString<'local>,
) -> Result<JObjectArray<'local, JString<'local>>, Error> {
    let method = read(env, &method)?.unwrap_or_default();
    let arg = read(env, &arg)?;
    let extras = if has_extras {
        let mut extras = Extras::new();
        for (key, value) in [
            (wire::EXTRA_TOOL_NAME, &tool_name),
            (wire::EXTRA_ARGS, &args),
            (wire::EXTRA_REQUEST_ID, &request_id),
        ] {
            if let Some(value) = read(env, value)? {
                extras.insert(key.to_owned(), value);
            }
        }
        Some(extras)
    } else {
        None
    };
    let caller = caller_from_java(calling_uid, read(env, &caller_packages)?.as_deref());
    let response = match super::runtime() {
        Some(runtime) => runtime.call(&method, arg.as_deref(), extras.as_ref(), &caller),
        None => Response::error(
            ErrorCode::InternalError,
            "the tool provider in this app has no CETP runtime (JNI_OnLoad did not run); this is a bug in the provider app, not in your call",
        ),
    };
    to_java(env, &response)
}

/// `static native String admin(String requestJson)`: the approval screen's JSON interface.
fn native_admin<'local>(
    env: &mut Env<'local>,
    _class: JClass<'local>,
    request: JString<'local>,
) -> Result<JString<'local>, Error> {
    let request = read(env, &request)?.unwrap_or_default();
    let reply = match super::runtime() {
        Some(runtime) => runtime.admin(&request),
        None => r#"{"ok":false,"error":{"kind":"not_running","message":"JNI_OnLoad did not run"}}"#
            .to_owned(),
    };
    JString::from_str(env, reply)
}

/// Reads a Java string (null stays `None`); unpaired surrogates become U+FFFD.
fn read(env: &Env<'_>, string: &JString<'_>) -> Result<Option<String>, Error> {
    if string.is_null() {
        return Ok(None);
    }
    let chars = string.mutf8_chars(env)?;
    Ok(Some(decode_lossy(chars.to_bytes()).into_owned()))
}

/// Writes the reply into a new `String[]` of `key, value, key, value, ...`, inside a local frame
/// so that no per-pair local reference outlives the loop.
fn to_java<'local>(
    env: &mut Env<'local>,
    response: &Response,
) -> Result<JObjectArray<'local, JString<'local>>, Error> {
    let pairs = response.to_pairs();
    let keys = JAVA.get().map(|java| java.keys.as_slice()).unwrap_or(&[]);
    env.with_local_frame_returning_local::<_, JObjectArray<JString>, Error>(
        2 * pairs.len() + 1,
        |env| {
            let array = JObjectArray::<JString>::new(env, 2 * pairs.len(), JString::null())?;
            for (index, (key, value)) in pairs.iter().enumerate() {
                match keys.iter().find(|(k, _)| k == key) {
                    Some((_, interned)) => array.set_element(env, 2 * index, interned)?,
                    None => {
                        let key = JString::from_str(env, key)?;
                        array.set_element(env, 2 * index, &key)?;
                    }
                }
                let value = JString::from_str(env, value)?;
                array.set_element(env, 2 * index + 1, &value)?;
            }
            Ok(array)
        },
    )
}

/// Error policy of both natives: log, clear any pending exception, return `null`.
///
/// The Java side turns `null` into an `INTERNAL_ERROR` reply, so the consumer always gets a
/// well-formed answer and the Binder thread never sees an exception from native code.
struct ClearAndLog;

impl<T: Default> ErrorPolicy<T, Error> for ClearAndLog {
    type Captures<'unowned_env_local: 'native_method, 'native_method> = ();

    fn on_error<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _captures: &mut (),
        err: Error,
    ) -> jni::errors::Result<T> {
        clear_pending(env);
        log::error!("CETP native bridge failed: {err}");
        Ok(T::default())
    }

    fn on_panic<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _captures: &mut (),
        payload: Box<dyn std::any::Any + Send + 'static>,
    ) -> jni::errors::Result<T> {
        clear_pending(env);
        log::error!("CETP native bridge panicked: {}", panic_text(&*payload));
        Ok(T::default())
    }
}

fn clear_pending(env: &Env<'_>) {
    if env.exception_check() {
        env.exception_clear();
    }
}
