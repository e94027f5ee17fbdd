//! Java values in, Java values out: strings, the caller's identity, reply pairs, and the error
//! policy every native runs under.

use std::cell::RefCell;
use std::sync::{Arc, OnceLock};

use jni::Env;
use jni::errors::{Error, ErrorPolicy};
use jni::objects::{JObjectArray, JString};
use jni::refs::Global;
use jni::sys::{jint, jlong};

use super::strings::new_string;
pub(super) use super::strings::{read, read_or_empty};
use crate::caller::{Caller, CallerPackage};
use crate::runtime::Running;
use crate::wire::{self, Response};

/// What call-time code needs from the JVM, created on the loading thread in `JNI_OnLoad`: every
/// constant string a reply can hold (its keys, the two statuses, the six error codes), so a
/// reply creates only the strings that vary (`data`, the message, the hint, the intent).
struct JavaSide {
    constants: Vec<(&'static str, Global<JString<'static>>)>,
}

static JAVA: OnceLock<JavaSide> = OnceLock::new();

/// Interns the reply keys as global Java strings (a reply then creates only its values) and
/// resolves `java.lang.String` for `String[]` replies while the class loader is the app's.
pub(super) fn prepare(env: &mut Env<'_>) -> Result<(), Error> {
    let codes = wire::ErrorCode::ALL.map(wire::ErrorCode::as_str);
    let all = wire::RESPONSE_KEYS
        .iter()
        .chain(&[wire::STATUS_SUCCESS, wire::STATUS_ERROR])
        .chain(&codes);
    let mut constants = Vec::new();
    for text in all {
        let local = new_string(env, text)?;
        constants.push((*text, env.new_global_ref(&local)?));
        env.delete_local_ref(local);
    }
    let warm = JObjectArray::<JString>::new(env, 0, JString::null())?;
    env.delete_local_ref(warm);
    if JAVA.set(JavaSide { constants }).is_err() {
        log::warn!("CETP native bridge registered again; keeping the first key cache");
    }
    Ok(())
}

/// How many identities each Binder thread keeps (agents calling one app are few).
const CALLERS_PER_THREAD: usize = 8;

thread_local! {
    /// The identities this thread read, by the token the template gave them, newest first.
    static CALLERS: RefCell<Vec<(jlong, Arc<Caller>)>> = const { RefCell::new(Vec::new()) };
}

/// The caller's identity as every native serving a caller receives it: `int callingUid, long
/// callerToken, String[] packages, String[][] certificateDigests` (see [`caller`]).
/// In that order: UID, token, packages, certificate digests.
pub(super) struct CallerParams<'a, 'local>(
    pub jint,
    pub jlong,
    pub &'a JObjectArray<'local, JString<'local>>,
    pub &'a JObjectArray<'local, JObjectArray<'local, JString<'local>>>,
);

/// Answers a native call for a caller: `not_running` if the runtime is not running, else
/// `answer` with the running runtime and the caller.
pub(super) fn serve<'local, T>(
    env: &mut Env<'local>,
    who: CallerParams<'_, 'local>,
    not_running: T,
    answer: impl FnOnce(&mut Env<'local>, &Running, &Caller) -> Result<T, Error>,
) -> Result<T, Error> {
    let Some(running) = super::running() else {
        return Ok(not_running);
    };
    let caller = caller(env, who.0, who.1, who.2, who.3)?;
    answer(env, &running, &caller)
}

/// The caller as the template resolved it.
///
/// The template's `CallerIdentity` gives each identity it reads a `token` that no other
/// identity in the process has (a new identity after a package change gets a new one), so the
/// arrays are read and decoded once per identity and thread, and a known caller costs no
/// string copy at all. A token of 0 or less means "do not keep": the arrays are read every time.
///
/// `packages[i]` is signed by the certificates whose hex SHA-256 digests are
/// `certificate_digests[i]` (a missing or null digest array means unknown certificates). A
/// negative UID means "unknown"; null arrays mean no packages.
pub(super) fn caller<'local>(
    env: &mut Env<'local>,
    uid: jint,
    token: jlong,
    packages: &JObjectArray<'local, JString<'local>>,
    certificate_digests: &JObjectArray<'local, JObjectArray<'local, JString<'local>>>,
) -> Result<Arc<Caller>, Error> {
    if token > 0 {
        let known = CALLERS.with_borrow(|callers| {
            callers
                .iter()
                .find(|(have, _)| *have == token)
                .map(|(_, caller)| Arc::clone(caller))
        });
        if let Some(caller) = known {
            return Ok(caller);
        }
    }
    let caller = Arc::new(read_caller(env, uid, packages, certificate_digests)?);
    if token > 0 {
        CALLERS.with_borrow_mut(|callers| {
            callers.insert(0, (token, Arc::clone(&caller)));
            callers.truncate(CALLERS_PER_THREAD);
        });
    }
    Ok(caller)
}

fn read_caller<'local>(
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

/// Writes the reply into a new `String[]` of `key, value, key, value, ...`, inside a local frame
/// so that no per-pair local reference outlives the loop. Constant strings come from the ones
/// interned at load; the others are created here.
pub(super) fn pairs<'local>(
    env: &mut Env<'local>,
    response: &Response,
) -> Result<JObjectArray<'local, JString<'local>>, Error> {
    let pairs = response.to_pairs();
    let constants = JAVA
        .get()
        .map(|java| java.constants.as_slice())
        .unwrap_or(&[]);
    let constant = |text: &str| {
        constants
            .iter()
            .find(|(have, _)| *have == text)
            .map(|(_, global)| global)
    };
    env.with_local_frame_returning_local::<_, JObjectArray<JString>, Error>(
        2 * pairs.len() + 1,
        |env| {
            let array = JObjectArray::<JString>::new(env, 2 * pairs.len(), JString::null())?;
            for (index, (key, value)) in pairs.iter().enumerate() {
                for (at, text) in [(2 * index, *key), (2 * index + 1, *value)] {
                    match constant(text) {
                        Some(interned) => array.set_element(env, at, interned)?,
                        None => {
                            let created = new_string(env, text)?;
                            array.set_element(env, at, &created)?;
                            env.delete_local_ref(created);
                        }
                    }
                }
            }
            Ok(array)
        },
    )
}

/// A `String[]` of `values` (a null element for `None`).
pub(super) fn strings<'local>(
    env: &mut Env<'local>,
    values: &[Option<&str>],
) -> Result<JObjectArray<'local, JString<'local>>, Error> {
    env.with_local_frame_returning_local::<_, JObjectArray<JString>, Error>(
        values.len() + 1,
        |env| {
            let array = JObjectArray::<JString>::new(env, values.len(), JString::null())?;
            for (index, value) in values.iter().enumerate() {
                if let Some(value) = value {
                    let value = new_string(env, value)?;
                    array.set_element(env, index, &value)?;
                    env.delete_local_ref(value);
                }
            }
            Ok(array)
        },
    )
}

/// Error policy of every native: log, clear any pending exception, return `null` (or `0`,
/// `false`, nothing).
///
/// The Java side turns `null` into the reply it makes when the library cannot answer, so the
/// consumer always gets a well-formed answer and the Binder thread never sees an exception from
/// native code.
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
        // The panic's text may quote the caller's values: not logged.
        drop(payload);
        log::error!("CETP native bridge panicked");
        Ok(T::default())
    }
}

fn clear_pending(env: &Env<'_>) {
    if env.exception_check() {
        env.exception_clear();
    }
}
