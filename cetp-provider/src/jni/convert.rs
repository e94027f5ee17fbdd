//! Java values in, Java values out: strings, the caller's identity, reply pairs, and the error
//! policy every native runs under.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU32, Ordering};
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

/// How many token epochs the library has handed out (see [`next_epoch`]).
static EPOCHS: AtomicU32 = AtomicU32::new(0);

/// A new token epoch for a Java side that starts the runtime: `1..=i32::MAX`, never the same
/// twice in this library, or 0 once all are used (its identities are then never kept).
///
/// A token is `epoch << 32 | n` with `n >= 1` counted by the side that holds the epoch
/// (`CallerIdentity`). Each Java side that talks to this library (one per class loader of the
/// template's classes) gets an epoch of its own from here, so two of them never hand over the
/// same token, even though each counts from 1.
pub(super) fn next_epoch() -> jlong {
    let limit = i32::MAX.unsigned_abs();
    match EPOCHS.fetch_update(Ordering::AcqRel, Ordering::Acquire, |issued| {
        (issued < limit).then_some(issued + 1)
    }) {
        Ok(previous) => jlong::from(previous + 1),
        Err(_) => 0,
    }
}

/// How many token epochs the library has handed out so far: epochs `1..=` this are issued.
fn issued_epochs() -> u32 {
    EPOCHS.load(Ordering::Acquire)
}

/// Whether `token` is one a Java side could have made from an epoch this library handed out,
/// when it has handed out `issued_epochs` of them (`1..=issued_epochs`): only those name an
/// identity, anything else (0, negative, an epoch never issued, a count of 0) is read every
/// time.
fn issued(token: jlong, issued_epochs: u32) -> bool {
    let epoch = token >> 32;
    token > 0 && token & 0xFFFF_FFFF != 0 && epoch >= 1 && epoch <= jlong::from(issued_epochs)
}

/// The identities one thread read, newest first, each under the token and UID it came with.
#[derive(Default)]
struct KnownCallers(Vec<(jlong, jint, Arc<Caller>)>);

impl KnownCallers {
    /// The identity kept for `token`, if it was read for the same `uid`: a token that comes
    /// with another UID is not the identity it named, whoever sent it.
    fn find(&self, token: jlong, uid: jint) -> Option<Arc<Caller>> {
        self.0
            .iter()
            .find(|(have, have_uid, _)| *have == token && *have_uid == uid)
            .map(|(_, _, caller)| Arc::clone(caller))
    }

    /// The identity of a call with `token` and `uid`, the library having handed out
    /// `issued_epochs` epochs: the one kept for them, else what `read` gives. Only a token of an
    /// issued epoch ([`issued`]) is looked up and keeps what was read; any other is read every
    /// time and keeps nothing.
    fn resolve<E>(
        &mut self,
        token: jlong,
        uid: jint,
        issued_epochs: u32,
        read: impl FnOnce() -> Result<Caller, E>,
    ) -> Result<Arc<Caller>, E> {
        let keep = issued(token, issued_epochs);
        if keep {
            if let Some(caller) = self.find(token, uid) {
                return Ok(caller);
            }
        }
        let caller = Arc::new(read()?);
        if keep {
            self.keep(token, uid, Arc::clone(&caller));
        }
        Ok(caller)
    }

    /// Keeps `caller` as what `token` and `uid` name (replacing what the token named before).
    fn keep(&mut self, token: jlong, uid: jint, caller: Arc<Caller>) {
        self.0.retain(|(have, _, _)| *have != token);
        self.0.insert(0, (token, uid, caller));
        self.0.truncate(CALLERS_PER_THREAD);
    }
}

thread_local! {
    /// The identities this thread read (see [`caller`]).
    static CALLERS: RefCell<KnownCallers> = RefCell::new(KnownCallers::default());
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
/// identity it made has (a new identity after a package change gets a new one), made from an
/// epoch this library handed out ([`next_epoch`]), so the arrays are read and decoded once per
/// identity and thread, and a known caller costs no string copy at all. A token is only trusted
/// as far as it can be: one from an epoch never issued (0 or less, a template that never got
/// one) is read every time, and a kept identity answers only a call with the UID it was read
/// with (a mismatch is read again and replaces it).
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
    CALLERS.with_borrow_mut(|callers| {
        callers.resolve(token, uid, issued_epochs(), || {
            read_caller(env, uid, packages, certificate_digests)
        })
    })
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
/// agent always gets a well-formed answer and the Binder thread never sees an exception from
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use std::cell::Cell;

    use super::{KnownCallers, issued, next_epoch};
    use crate::caller::{Caller, CallerPackage};

    fn caller(uid: u32, package: &str) -> Arc<Caller> {
        Arc::new(Caller::from_parts(
            Some(uid),
            vec![CallerPackage {
                name: package.to_owned(),
                certificate_sha256: vec!["ab".repeat(32)],
            }],
        ))
    }

    fn token(epoch: i64, count: i64) -> i64 {
        epoch << 32 | count
    }

    #[test]
    fn two_issuers_counting_from_one_never_share_a_token() {
        let first = next_epoch();
        let second = next_epoch();
        assert!(first >= 1 && second > first, "{first} then {second}");
        assert_ne!(token(first, 1), token(second, 1));
        let issued_epochs = u32::try_from(second).unwrap();
        assert!(issued(token(first, 1), issued_epochs) && issued(token(second, 1), issued_epochs));
    }

    #[test]
    fn a_kept_identity_answers_only_its_own_uid() {
        let epoch = 1;
        let mut known = KnownCallers::default();
        let agent = caller(10_200, "com.example.agent");
        known.keep(token(epoch, 1), 10_200, Arc::clone(&agent));
        let hit = known.find(token(epoch, 1), 10_200).expect("kept");
        assert!(Arc::ptr_eq(&hit, &agent));
        // The same number from another caller (an issuer whose count restarted): a miss.
        assert!(known.find(token(epoch, 1), 10_201).is_none());
        // What is read for it then replaces the old entry instead of standing beside it.
        known.keep(token(epoch, 1), 10_201, caller(10_201, "com.example.other"));
        assert!(known.find(token(epoch, 1), 10_200).is_none());
        let other = known.find(token(epoch, 1), 10_201).expect("kept");
        assert_eq!(other.packages()[0].name, "com.example.other");
    }

    #[test]
    fn tokens_from_no_issued_epoch_are_never_kept() {
        // Three epochs handed out.
        let epochs = 3;
        // What a template that never asked for an epoch sends: small numbers, 0, negatives.
        for token in [0, 1, 2, 7, -1, i64::MIN, token(3, 0), token(-1, 1)] {
            assert!(!issued(token, epochs), "{token:#x}");
        }
        // An epoch this library has not handed out yet.
        assert!(!issued(token(4, 1), epochs));
        assert!(!issued(token(1, 1), 0), "none handed out");
        assert!(issued(token(1, 1), epochs) && issued(token(3, 0xFFFF_FFFF), epochs));
    }

    /// What [`KnownCallers::resolve`] answers for `token` and `uid` with three epochs handed
    /// out, and whether it read the arrays for it.
    fn resolve(known: &mut KnownCallers, token: i64, uid: i32) -> (Arc<Caller>, bool) {
        let read = Cell::new(false);
        let caller = known
            .resolve::<()>(token, uid, 3, || {
                read.set(true);
                Ok(Caller::from_parts(
                    u32::try_from(uid).ok(),
                    vec![CallerPackage {
                        name: "com.example.agent".to_owned(),
                        certificate_sha256: vec![],
                    }],
                ))
            })
            .unwrap();
        (caller, read.get())
    }

    #[test]
    fn only_tokens_of_an_issued_epoch_keep_an_identity() {
        let mut known = KnownCallers::default();
        // Epoch 3 was handed out: read once, then kept.
        assert!(
            resolve(&mut known, token(3, 1), 10_200).1,
            "first call reads"
        );
        assert!(
            !resolve(&mut known, token(3, 1), 10_200).1,
            "then it is kept"
        );
        assert!(
            resolve(&mut known, token(3, 1), 10_201).1,
            "another UID reads"
        );
        // Epoch 4 never was, nor are tokens without an epoch: read on every call, never kept.
        for token in [token(4, 1), token(0, 1), 0, -5] {
            assert!(resolve(&mut known, token, 10_200).1, "{token:#x}");
            assert!(resolve(&mut known, token, 10_200).1, "{token:#x} again");
            assert!(known.find(token, 10_200).is_none(), "{token:#x} kept");
        }
        assert_eq!(known.0.len(), 1);
    }

    #[test]
    fn a_thread_keeps_a_bounded_number_of_identities() {
        let epoch = 1;
        let mut known = KnownCallers::default();
        for count in 1..=20 {
            known.keep(token(epoch, count), 10_000, caller(10_000, "com.example"));
        }
        assert_eq!(known.0.len(), super::CALLERS_PER_THREAD);
        assert!(known.find(token(epoch, 20), 10_000).is_some());
        assert!(known.find(token(epoch, 1), 10_000).is_none());
    }
}
