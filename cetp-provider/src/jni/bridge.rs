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
use jni::sys::{jint, jlong};
use jni::vm::JavaVM;
use jni::{Env, NativeMethod, jni_str, native_method};

use super::mutf8::decode_lossy;
use super::runtime::admin_error;
use crate::app::App;
use crate::context::{Caller, CallerPackage};
use crate::error::{panic_text, provider_bug};
use crate::request::Request;
use crate::wire::{self, Response};

/// What call-time code needs from the JVM, created on the loading thread in `JNI_OnLoad`.
struct JavaSide {
    keys: Vec<(&'static str, Global<JString<'static>>)>,
}

static JAVA: OnceLock<JavaSide> = OnceLock::new();

const METHODS: &[NativeMethod] = &[
    native_method! {
        static fn native_init(
            files_dir: JString,
            package_name: JString,
            version_code: jlong,
            version_name: JString,
        ) -> JString,
        name = "init",
        error_policy = ClearAndLog,
    },
    native_method! {
        static fn native_call(
            method: JString,
            tool_name: JString,
            args: JString,
            request_id: JString,
            calling_uid: jint,
            packages: JString[],
            certificate_digests: JString[][],
        ) -> JString[],
        name = "call",
        error_policy = ClearAndLog,
    },
    native_method! {
        static fn native_admin(request: JString) -> JString,
        name = "admin",
        error_policy = ClearAndLog,
    },
    native_method! {
        static fn native_constant_reply(method: JString) -> JString[],
        name = "constantReply",
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
        super::apex::register(env)?;
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

/// `static native String init(String filesDir, String packageName, long versionCode, String
/// versionName)`: null when the provider started, else why not.
fn native_init<'local>(
    env: &mut Env<'local>,
    _class: JClass<'local>,
    files_dir: JString<'local>,
    package_name: JString<'local>,
    version_code: jlong,
    version_name: JString<'local>,
) -> Result<JString<'local>, Error> {
    let app = App::new(
        read(env, &package_name)?.unwrap_or_default(),
        read(env, &files_dir)?.unwrap_or_default(),
    )
    .with_version(version_code, read(env, &version_name)?.unwrap_or_default());
    let outcome = match super::runtime() {
        Some(runtime) => runtime.init(app),
        None => Err(NO_RUNTIME.to_owned()),
    };
    match outcome {
        Ok(()) => Ok(JString::null()),
        Err(reason) => JString::from_str(env, reason),
    }
}

/// Why nothing answers when the library's `JNI_OnLoad` never ran.
const NO_RUNTIME: &str =
    "the tool provider in this app has no CETP runtime (JNI_OnLoad did not run)";

/// `static native String[] call(...)`: the reply as flat key/value pairs, or null if the bridge
/// itself failed.
#[allow(clippy::too_many_arguments)] // One JNI crossing per call: everything comes at once.
fn native_call<'local>(
    env: &mut Env<'local>,
    _class: JClass<'local>,
    method: JString<'local>,
    tool_name: JString<'local>,
    args: JString<'local>,
    request_id: JString<'local>,
    calling_uid: jint,
    packages: JObjectArray<'local, JString<'local>>,
    certificate_digests: JObjectArray<'local, JObjectArray<'local, JString<'local>>>,
) -> Result<JObjectArray<'local, JString<'local>>, Error> {
    let method = read(env, &method)?.unwrap_or_default();
    let tool_name = read(env, &tool_name)?;
    let args = read(env, &args)?;
    let request_id = read(env, &request_id)?;
    let request = Request {
        method: &method,
        tool_name: tool_name.as_deref(),
        args: args.as_deref(),
        request_id: request_id.as_deref(),
    };
    let caller = read_caller(env, calling_uid, &packages, &certificate_digests)?;
    let response = match super::runtime() {
        Some(runtime) => runtime.call(&request, &caller),
        None => Response::Error(provider_bug(NO_RUNTIME)),
    };
    to_java(env, &response)
}

/// The caller as the template resolved it: `packages[i]` is signed by the certificates whose
/// hex SHA-256 digests are `certificate_digests[i]` (a missing or null digest array means
/// unknown certificates). A negative UID means "unknown"; null arrays mean no packages.
pub(super) fn read_caller<'local>(
    env: &mut Env<'local>,
    uid: jint,
    packages: &JObjectArray<'local, JString<'local>>,
    certificate_digests: &JObjectArray<'local, JObjectArray<'local, JString<'local>>>,
) -> Result<Caller, Error> {
    let count = length(env, packages)?;
    let digest_count = length(env, certificate_digests)?;
    let mut resolved = Vec::with_capacity(count);
    for index in 0..count {
        let element = packages.get_element(env, index)?;
        let name = read(env, &element)?;
        env.delete_local_ref(element);
        let Some(name) = name else { continue };
        let mut certificate_sha256 = Vec::new();
        if index < digest_count {
            let digests = certificate_digests.get_element(env, index)?;
            for digest_index in 0..length(env, &digests)? {
                let digest = digests.get_element(env, digest_index)?;
                if let Some(hex) = read(env, &digest)? {
                    certificate_sha256.push(hex.to_ascii_lowercase());
                }
                env.delete_local_ref(digest);
            }
            env.delete_local_ref(digests);
        }
        resolved.push(CallerPackage {
            name,
            certificate_sha256,
        });
    }
    Ok(Caller::from_parts(u32::try_from(uid).ok(), resolved))
}

/// The length of a Java array, 0 for null.
fn length<E: jni::refs::Reference>(
    env: &Env<'_>,
    array: &JObjectArray<'_, E>,
) -> Result<usize, Error> {
    if array.is_null() {
        Ok(0)
    } else {
        array.len(env)
    }
}

/// `static native String[] constantReply(String method)`: the reply to `method` as key/value
/// pairs when it is the same for every caller (`list_tools`, `get_provider_info` while discovery
/// is open), so the template can keep it and answer without resolving the caller or crossing
/// JNI; null otherwise.
fn native_constant_reply<'local>(
    env: &mut Env<'local>,
    _class: JClass<'local>,
    method: JString<'local>,
) -> Result<JObjectArray<'local, JString<'local>>, Error> {
    let method = read(env, &method)?.unwrap_or_default();
    match super::runtime().and_then(|runtime| runtime.constant_reply(&method)) {
        Some(response) => to_java(env, &response),
        None => Ok(JObjectArray::<JString>::null()),
    }
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
        None => admin_error(NO_RUNTIME),
    };
    JString::from_str(env, reply)
}

/// Reads a Java string (null stays `None`); unpaired surrogates become U+FFFD.
pub(super) fn read(env: &Env<'_>, string: &JString<'_>) -> Result<Option<String>, Error> {
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
pub(super) struct ClearAndLog;

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
