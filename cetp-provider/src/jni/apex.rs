//! The natives of `dev.cetp.ApexBridge`, behind the template's `ApexPluginService`: one JNI
//! crossing per `IApexPlugin` transaction, answered by [`crate::apex`] from the provider the
//! runtime built. Registered by `JNI_OnLoad` next to `NativeBridge`'s; a template without the
//! class (an app that predates the Apex service) only loses the Apex natives.

use jni::errors::Error;
use jni::objects::{JClass, JObjectArray, JString};
use jni::sys::{jboolean, jint};
use jni::{Env, NativeMethod, jni_str, native_method};

use super::bridge::{ClearAndLog, read, read_caller};
use crate::apex;
use crate::error::provider_bug;
use crate::wire::Response;

/// `getMetadataJson()`.
const OP_METADATA: jint = 0;
/// `getToolsJson()`.
const OP_TOOLS: jint = 1;
/// `executeTool(toolId, argumentsJson)`.
const OP_EXECUTE: jint = 2;
/// `onActivate()`.
const OP_ACTIVATE: jint = 3;
/// `onDeactivate()`.
const OP_DEACTIVATE: jint = 4;

const METHODS: &[NativeMethod] = &[
    native_method! {
        static fn native_apex_call(
            op: jint,
            tool_id: JString,
            arguments_json: JString,
            calling_uid: jint,
            packages: JString[],
            certificate_digests: JString[][],
        ) -> JString,
        name = "call",
        error_policy = ClearAndLog,
    },
    native_method! {
        static fn native_running_for(files_dir: JString) -> jboolean,
        name = "runningFor",
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
    // Safety: `native_method!` checked every function against its JNI signature, and both are
    // declared `static` here and in ApexBridge.java.
    let registered = unsafe { env.register_native_methods(&class, METHODS) };
    env.delete_local_ref(class);
    registered
}

/// `static native String call(int op, String toolId, String argumentsJson, int callingUid,
/// String[] packages, String[][] certificateDigests)`.
#[allow(clippy::too_many_arguments)] // One JNI crossing per transaction: everything comes at once.
fn native_apex_call<'local>(
    env: &mut Env<'local>,
    _class: JClass<'local>,
    op: jint,
    tool_id: JString<'local>,
    arguments_json: JString<'local>,
    calling_uid: jint,
    packages: JObjectArray<'local, JString<'local>>,
    certificate_digests: JObjectArray<'local, JObjectArray<'local, JString<'local>>>,
) -> Result<JString<'local>, Error> {
    let tool_id = read(env, &tool_id)?;
    let arguments = read(env, &arguments_json)?;
    let caller = read_caller(env, calling_uid, &packages, &certificate_digests)?;
    let provider = super::runtime().map(|r| r.provider());
    let reply = match provider {
        Some(Ok(provider)) => {
            let plugin = provider.apex();
            match op {
                OP_METADATA => plugin.metadata_json(&caller),
                OP_TOOLS => plugin.tools_json(&caller),
                OP_EXECUTE => plugin.execute(tool_id.as_deref(), arguments.as_deref(), &caller),
                OP_ACTIVATE => {
                    plugin.activate(&caller);
                    String::new()
                }
                OP_DEACTIVATE => {
                    plugin.deactivate(&caller);
                    String::new()
                }
                other => {
                    log::error!("CETP: unknown Apex bridge operation {other}");
                    String::new()
                }
            }
        }
        Some(Err(not_running)) => unavailable(op, Response::Error(not_running)),
        None => unavailable(
            op,
            Response::Error(provider_bug(
                "the tool provider in this app has no CETP runtime (JNI_OnLoad did not run)",
            )),
        ),
    };
    JString::from_str(env, reply)
}

/// What the host gets while no provider runs: empty metadata and tools (the host shows no
/// tools), the error text for `executeTool`.
fn unavailable(op: jint, response: Response) -> String {
    match op {
        OP_METADATA => "{}".to_owned(),
        OP_TOOLS => "[]".to_owned(),
        OP_EXECUTE => apex::render(&response),
        _ => String::new(),
    }
}

/// `static native boolean runningFor(String filesDir)`.
fn native_running_for<'local>(
    env: &mut Env<'local>,
    _class: JClass<'local>,
    files_dir: JString<'local>,
) -> Result<jboolean, Error> {
    let files_dir = read(env, &files_dir)?.unwrap_or_default();
    let running = super::runtime()
        .and_then(|r| r.provider().ok())
        .is_some_and(|p| {
            p.app()
                .is_some_and(|app| app.files_dir() == std::path::Path::new(&files_dir))
        });
    Ok(jboolean::from(running))
}
