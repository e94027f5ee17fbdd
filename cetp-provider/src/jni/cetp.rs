//! The natives of `dev.cetp.NativeBridge`: starting the runtime, the CETP ContentProvider's
//! calls and kept replies, and the consent dialog's admin interface.

use jni::errors::Error;
use jni::objects::{JClass, JObjectArray, JString};
use jni::sys::{jint, jlong};
use jni::{Env, NativeMethod, native_method};

use super::convert::{CallerParams, ClearAndLog, pairs, read, read_or_empty, serve, strings};
use crate::app::App;
use crate::host::Request;
use crate::host::cetp_v2::extras::{self, Extras, Protocol};
use crate::host::cetp_v2::words::{
    EXTRA_CONSUMER_CAPABILITIES, EXTRA_CONSUMER_VERSIONS, EXTRA_DEADLINE_AT_MS, EXTRA_OPERATION_ID,
    EXTRA_RESUME_TOKEN, EXTRA_SESSION_TOKEN,
};
use crate::host::cetp_v2::{BundleValue, V2Request};
use crate::wire;

pub(super) const METHODS: &[NativeMethod] = &[
    native_method! {
        static fn native_init(
            files_dir: JString,
            no_backup_dir: JString,
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
            caller_token: jlong,
            packages: JString[],
            certificate_digests: JString[][],
        ) -> JString[],
        name = "call",
        error_policy = ClearAndLog,
    },
    native_method! {
        static fn native_call_typed(
            method: JString,
            extras: JString[],
            calling_uid: jint,
            caller_token: jlong,
            packages: JString[],
            certificate_digests: JString[][],
        ) -> JString[],
        name = "callTyped",
        error_policy = ClearAndLog,
    },
    native_method! {
        static fn native_token_epoch() -> jlong,
        name = "tokenEpoch",
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

/// `static native String init(String filesDir, String noBackupDir, String packageName, long
/// versionCode, String versionName)`: null when the provider started, else why not.
fn native_init<'local>(
    env: &mut Env<'local>,
    _class: JClass<'local>,
    files_dir: JString<'local>,
    no_backup_dir: JString<'local>,
    package_name: JString<'local>,
    version_code: jlong,
    version_name: JString<'local>,
) -> Result<JString<'local>, Error> {
    let app = app(
        read_or_empty(env, &package_name)?,
        read_or_empty(env, &files_dir)?,
        read(env, &no_backup_dir)?,
    )
    .with_version(version_code, read_or_empty(env, &version_name)?);
    match super::runtime().start(app) {
        Ok(()) => Ok(JString::null()),
        Err(reason) => super::strings::new_string(env, &reason),
    }
}

/// `static native long tokenEpoch()`: a token epoch of its own for the Java side asking (see
/// `convert::next_epoch`), 0 when none is left.
fn native_token_epoch(_env: &mut Env<'_>, _class: JClass<'_>) -> Result<jlong, Error> {
    Ok(super::convert::next_epoch())
}

/// The app as the template reports it. The no-backup directory is the one the platform reported
/// (`getNoBackupFilesDir()`) whenever there is one, not one derived from the files dir: only the
/// platform knows where backups do not reach.
fn app(package: String, files_dir: String, no_backup_dir: Option<String>) -> App {
    let app = App::new(package, files_dir);
    match no_backup_dir.filter(|dir| !dir.is_empty()) {
        Some(dir) => app.with_no_backup_dir(dir),
        None => app,
    }
}

/// `static native String[] call(String method, String toolName, String args, String requestId,
/// int callingUid, long callerToken, String[] packages, String[][] certificateDigests)`: the
/// reply as flat key/value pairs; null if the provider is not running or the bridge failed.
#[allow(clippy::too_many_arguments)] // One JNI crossing per call: everything comes at once.
fn native_call<'local>(
    env: &mut Env<'local>,
    _class: JClass<'local>,
    method: JString<'local>,
    tool_name: JString<'local>,
    args: JString<'local>,
    request_id: JString<'local>,
    uid: jint,
    token: jlong,
    packages: JObjectArray<'local, JString<'local>>,
    certificate_digests: JObjectArray<'local, JObjectArray<'local, JString<'local>>>,
) -> Result<JObjectArray<'local, JString<'local>>, Error> {
    serve(
        env,
        CallerParams(uid, token, &packages, &certificate_digests),
        JObjectArray::<JString>::null(),
        |env, running, caller| {
            let method = read_or_empty(env, &method)?;
            let tool_name = read(env, &tool_name)?;
            let args = read(env, &args)?;
            let request_id = read(env, &request_id)?;
            let request = Request {
                method: &method,
                tool_name: tool_name.as_deref(),
                args: args.as_deref(),
                request_id: request_id.as_deref(),
            };
            pairs(env, &running.cetp_v1.call(&request, caller))
        },
    )
}

/// `static native String[] callTyped(String method, String[] extras, int callingUid, long
/// callerToken, String[] packages, String[][] certificateDigests)`: a call whose extras the
/// template passed as typed `key, tag, value` triples (`host::cetp_v2::extras`), answered the
/// same way. A v2 call ([`Extras::protocol`]) goes to the v2 host, as does one whose
/// `protocol_version` 2 came as a `Long` or `String` (answered `INVALID_REQUEST`); anything else
/// goes to v1's, whose reply is all strings. Null if the provider is not running or the bridge failed.
#[allow(clippy::too_many_arguments)] // One JNI crossing per call: everything comes at once.
fn native_call_typed<'local>(
    env: &mut Env<'local>,
    _class: JClass<'local>,
    method: JString<'local>,
    extras: JObjectArray<'local, JString<'local>>,
    uid: jint,
    token: jlong,
    packages: JObjectArray<'local, JString<'local>>,
    certificate_digests: JObjectArray<'local, JObjectArray<'local, JString<'local>>>,
) -> Result<JObjectArray<'local, JString<'local>>, Error> {
    serve(
        env,
        CallerParams(uid, token, &packages, &certificate_digests),
        JObjectArray::<JString>::null(),
        |env, running, caller| {
            let method = read_or_empty(env, &method)?;
            let mut flat = Vec::new();
            if !extras.is_null() {
                for index in 0..extras.len(env)? {
                    let element = extras.get_element(env, index)?;
                    flat.push(read(env, &element)?);
                    env.delete_local_ref(element);
                }
            }
            let extras = Extras::from_flat(flat);
            let protocol = extras.protocol(&method);
            if protocol == Protocol::MistypedV2 {
                let id = extras.text(wire::EXTRA_REQUEST_ID);
                let reply = running.cetp_v2().mistyped_protocol_version(id, caller);
                return typed(env, &reply.to_entries());
            }
            if protocol == Protocol::V1 {
                let request = Request {
                    method: &method,
                    tool_name: extras.text(wire::EXTRA_TOOL_NAME),
                    args: extras.text(wire::EXTRA_ARGS),
                    request_id: extras.text(wire::EXTRA_REQUEST_ID),
                };
                let response = running.cetp_v1.call(&request, caller);
                let pairs = response.to_pairs();
                let entries: Vec<_> = pairs
                    .iter()
                    .map(|(key, value)| (*key, BundleValue::Text(value)))
                    .collect();
                return typed(env, &entries);
            }
            let versions = extras.ints(EXTRA_CONSUMER_VERSIONS);
            let request = V2Request {
                method: &method,
                session_token: extras.text(EXTRA_SESSION_TOKEN),
                request_id: extras.text(wire::EXTRA_REQUEST_ID),
                deadline_at_ms: extras.long(EXTRA_DEADLINE_AT_MS),
                tool_name: extras.text(wire::EXTRA_TOOL_NAME),
                args: extras.text(wire::EXTRA_ARGS),
                resume_token: extras.text(EXTRA_RESUME_TOKEN),
                consumer_versions: versions.as_deref(),
                consumer_capabilities: extras.text(EXTRA_CONSUMER_CAPABILITIES),
                operation_id: extras.text(EXTRA_OPERATION_ID),
            };
            let reply = running.cetp_v2().call(&request, caller);
            let triples = typed(env, &reply.to_entries())?;
            // The template opens a large result's file and unlinks it from here on; until
            // now, any failure dropped the reply and removed the file.
            reply.hand_over_file();
            Ok(triples)
        },
    )
}

/// `entries` as a `String[]` of `key, tag, value` triples.
fn typed<'local>(
    env: &mut Env<'local>,
    entries: &[(&str, BundleValue<'_>)],
) -> Result<JObjectArray<'local, JString<'local>>, Error> {
    let flat = extras::flatten(entries);
    let values: Vec<Option<&str>> = flat.iter().map(|text| Some(text.as_ref())).collect();
    strings(env, &values)
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
    let method = read_or_empty(env, &method)?;
    match super::running().and_then(|running| running.cetp_v1.constant_reply(&method)) {
        Some(response) => pairs(env, &response),
        None => Ok(JObjectArray::<JString>::null()),
    }
}

/// `static native String admin(String requestJson)`: the consent dialog's JSON interface; null
/// if the provider is not running or the bridge failed.
fn native_admin<'local>(
    env: &mut Env<'local>,
    _class: JClass<'local>,
    request: JString<'local>,
) -> Result<JString<'local>, Error> {
    let Some(running) = super::running() else {
        return Ok(JString::null());
    };
    let request = read_or_empty(env, &request)?;
    super::strings::new_string(env, &running.admin(&request))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn the_no_backup_dir_is_the_one_the_platform_reported() {
        let reported = super::app(
            "com.example".into(),
            "/data/user/0/com.example/files".into(),
            Some("/data/elsewhere/no_backup".into()),
        );
        assert_eq!(
            reported.no_backup_dir(),
            Path::new("/data/elsewhere/no_backup")
        );
        // Without one (an API level that has none), the sibling of the files dir.
        for missing in [None, Some(String::new())] {
            let derived = super::app(
                "com.example".into(),
                "/data/user/0/com.example/files".into(),
                missing,
            );
            assert_eq!(
                derived.no_backup_dir(),
                Path::new("/data/user/0/com.example/no_backup")
            );
        }
    }
}
