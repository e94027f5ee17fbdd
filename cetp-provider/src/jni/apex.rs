//! The natives of `dev.cetp.ApexBridge`, one per `IApexPlugin` method, behind the template's
//! `ApexPluginService`: each answers from the runtime's [`ApexHost`](crate::host::apex::ApexHost).
//! A template without the class (an app that predates the Apex service) only loses these.

use jni::errors::Error;
use jni::objects::{JClass, JObjectArray, JString};
use jni::sys::{jint, jlong};
use jni::{Env, NativeMethod, jni_str, native_method};

use super::convert::{CallerParams, ClearAndLog, read, serve, strings};
use super::strings::new_string;
use crate::host::apex;

const METHODS: &[NativeMethod] = &[
    native_method! {
        static fn native_metadata_json(
            calling_uid: jint,
            caller_token: jlong,
            packages: JString[],
            certificate_digests: JString[][],
        ) -> JString,
        name = "metadataJson",
        error_policy = ClearAndLog,
    },
    native_method! {
        static fn native_tools_json(
            calling_uid: jint,
            caller_token: jlong,
            packages: JString[],
            certificate_digests: JString[][],
        ) -> JString,
        name = "toolsJson",
        error_policy = ClearAndLog,
    },
    native_method! {
        static fn native_execute_tool(
            tool_id: JString,
            arguments_json: JString,
            calling_uid: jint,
            caller_token: jlong,
            packages: JString[],
            certificate_digests: JString[][],
        ) -> JString[],
        name = "executeTool",
        error_policy = ClearAndLog,
    },
    native_method! {
        static fn native_on_activate(
            calling_uid: jint,
            caller_token: jlong,
            packages: JString[],
            certificate_digests: JString[][],
        ),
        name = "onActivate",
        error_policy = ClearAndLog,
    },
    native_method! {
        static fn native_on_deactivate(
            calling_uid: jint,
            caller_token: jlong,
            packages: JString[],
            certificate_digests: JString[][],
        ),
        name = "onDeactivate",
        error_policy = ClearAndLog,
    },
    native_method! {
        static fn native_on_unbind(),
        name = "onUnbind",
        error_policy = ClearAndLog,
    },
];

/// Registers the natives on `dev.cetp.ApexBridge`, if the template has the class.
pub(super) fn register(env: &mut Env<'_>) -> Result<(), Error> {
    let class = match env.find_class(jni_str!("dev/cetp/ApexBridge")) {
        Ok(class) => class,
        Err(err) => {
            if env.exception_check() {
                env.exception_clear();
            }
            log::warn!("CETP: dev.cetp.ApexBridge not found ({err}); the Apex plugin is off");
            return Ok(());
        }
    };
    // Safety: `native_method!` checked every function against its JNI signature, and all are
    // declared `static` here and in ApexBridge.java.
    let registered = unsafe { env.register_native_methods(&class, METHODS) };
    env.delete_local_ref(class);
    registered
}

type Packages<'local> = JObjectArray<'local, JString<'local>>;
type Digests<'local> = JObjectArray<'local, JObjectArray<'local, JString<'local>>>;

/// `static native String metadataJson(int callingUid, long callerToken, String[] packages,
/// String[][] certificateDigests)`: null if the provider is not running or the bridge failed.
fn native_metadata_json<'local>(
    env: &mut Env<'local>,
    _class: JClass<'local>,
    uid: jint,
    token: jlong,
    packages: Packages<'local>,
    certificate_digests: Digests<'local>,
) -> Result<JString<'local>, Error> {
    serve(
        env,
        CallerParams(uid, token, &packages, &certificate_digests),
        JString::null(),
        |env, running, caller| new_string(env, &running.apex.metadata_json(caller)),
    )
}

/// `static native String toolsJson(…)`: as [`native_metadata_json`], for `getToolsJson`.
fn native_tools_json<'local>(
    env: &mut Env<'local>,
    _class: JClass<'local>,
    uid: jint,
    token: jlong,
    packages: Packages<'local>,
    certificate_digests: Digests<'local>,
) -> Result<JString<'local>, Error> {
    serve(
        env,
        CallerParams(uid, token, &packages, &certificate_digests),
        JString::null(),
        |env, running, caller| new_string(env, &running.apex.tools_json(caller)),
    )
}

/// `static native String[] executeTool(String toolId, String argumentsJson, int callingUid,
/// long callerToken, String[] packages, String[][] certificateDigests)`: `{text, errorCode}`,
/// the text the host gets and the CETP error code of a failure (null for a success); null if the
/// provider is not running or the bridge failed.
#[allow(clippy::too_many_arguments)] // One JNI crossing per transaction: everything comes at once.
fn native_execute_tool<'local>(
    env: &mut Env<'local>,
    _class: JClass<'local>,
    tool_id: JString<'local>,
    arguments_json: JString<'local>,
    uid: jint,
    token: jlong,
    packages: Packages<'local>,
    certificate_digests: Digests<'local>,
) -> Result<JObjectArray<'local, JString<'local>>, Error> {
    serve(
        env,
        CallerParams(uid, token, &packages, &certificate_digests),
        JObjectArray::<JString>::null(),
        |env, running, caller| {
            let tool_id = read(env, &tool_id)?;
            let arguments = read(env, &arguments_json)?;
            let response =
                running
                    .apex
                    .execute_response(tool_id.as_deref(), arguments.as_deref(), caller);
            let code = response.error_code().map(|code| code.as_str());
            strings(env, &[Some(&apex::render(&response)), code])
        },
    )
}

/// `static native void onActivate(int callingUid, long callerToken, String[] packages,
/// String[][] certificateDigests)`.
fn native_on_activate<'local>(
    env: &mut Env<'local>,
    _class: JClass<'local>,
    uid: jint,
    token: jlong,
    packages: Packages<'local>,
    certificate_digests: Digests<'local>,
) -> Result<(), Error> {
    serve(
        env,
        CallerParams(uid, token, &packages, &certificate_digests),
        (),
        |_, running, caller| {
            running.apex.activate(caller);
            Ok(())
        },
    )
}

/// `static native void onDeactivate(…)`.
fn native_on_deactivate<'local>(
    env: &mut Env<'local>,
    _class: JClass<'local>,
    uid: jint,
    token: jlong,
    packages: Packages<'local>,
    certificate_digests: Digests<'local>,
) -> Result<(), Error> {
    serve(
        env,
        CallerParams(uid, token, &packages, &certificate_digests),
        (),
        |_, running, caller| {
            running.apex.deactivate(caller);
            Ok(())
        },
    )
}

/// `static native void onUnbind()`: the Service's last binding closed (no caller: the platform
/// names none). Nothing to do when the provider is not running.
fn native_on_unbind<'local>(_env: &mut Env<'local>, _class: JClass<'local>) -> Result<(), Error> {
    if let Some(running) = super::running() {
        running.apex.unbind_all();
    }
    Ok(())
}
