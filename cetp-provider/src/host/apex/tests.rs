use std::sync::Mutex;

use serde_json::json;

use super::*;
use crate::auth::{Approval, Auth, RateLimit};
use crate::host::{CetpV1Host, Request};
use crate::{AnyTool, CallContext, ProviderBuilder, Tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// Text to send back.
    #[schemars(length(min = 1, max = 10))]
    text: String,
}

struct Echo;

impl Tool for Echo {
    type Args = EchoArgs;
    type Output = String;
    const NAME: &'static str = "echo_text";
    const DESCRIPTION: &'static str = "Returns its input.";
    const SCOPES: &'static [&'static str] = &["echo"];

    fn call(&self, args: EchoArgs, _ctx: &CallContext) -> Result<String, ToolError> {
        Ok(args.text)
    }
}

fn builder(auth: Auth, apex: Apex) -> ProviderBuilder {
    Provider::builder("Echo Box")
        .description("Echoes")
        .scope("echo", "your echoes")
        .tools([AnyTool::new(Echo)])
        .auth(auth)
        .host(apex)
}

fn host_in(app: App, auth: Auth, apex: Apex) -> ApexHost {
    ApexHost::new(Arc::new(builder(auth, apex).app(app).build().unwrap()))
}

fn host() -> Caller {
    Caller::app(10_300, "com.apex.agent").with_certificate("aa")
}

#[test]
fn metadata_reports_the_app_and_the_provider() {
    let dir = tempfile::tempdir().unwrap();
    let app = App::new("com.example.echo", dir.path()).with_version(12, "1.2.0");
    let plugin = host_in(app, Auth::open(), Apex::new().min_host_version(4));
    let meta: Value = serde_json::from_str(&plugin.metadata_json(&host())).unwrap();
    assert_eq!(
        meta,
        json!({"id": "com.example.echo", "name": "Echo Box", "version": 12,
               "versionName": "1.2.0", "minHostVersion": 4, "description": "Echoes"})
    );
}

#[test]
fn tools_carry_ids_titles_and_the_list_tools_schema_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let app = App::new("com.example.Echo-Box", dir.path());
    let plugin = host_in(app, Auth::open(), Apex::new());
    let tools: Value = serde_json::from_str(&plugin.tools_json(&host())).unwrap();
    let tool = &tools[0];
    assert_eq!(tool["id"], "echo_box__echo_text");
    assert_eq!(tool["name"], "Echo text");
    assert_eq!(tool["description"], "Returns its input.");
    let schema: Value = serde_json::from_str(tool["parametersSchema"].as_str().unwrap()).unwrap();
    assert_eq!(schema, plugin.provider().tools()[0].parameters);
    assert_eq!(
        plugin.tool_ids().collect::<Vec<_>>(),
        [("echo_box__echo_text", "echo_text")]
    );
}

#[test]
fn a_bad_prefix_fails_the_build() {
    let err = Provider::builder("P")
        .host(Apex::new().tool_ids(ToolIds::Prefix("has/slash".into())))
        .build()
        .unwrap_err();
    assert!(
        matches!(
            &err,
            crate::BuildError::Host {
                host: "Apex plugin",
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string()
            .starts_with("Apex plugin: the tool id prefix"),
        "{err}"
    );
}

#[test]
fn execute_goes_through_authorization_and_validation() {
    let dir = tempfile::tempdir().unwrap();
    let app = App::new("com.example.echo", dir.path());
    let plugin = host_in(app, Auth::user_approval(), Apex::new());
    let first = plugin.execute(Some("echo__echo_text"), Some(r#"{"text":"hi"}"#), &host());
    assert_eq!(error_code(&first), Some(ErrorCode::AuthRequired), "{first}");
    assert!(first.contains("\nHint: Open Echo Box"), "{first}");
    let auth = plugin.provider().authorizer();
    let pending = auth.pending();
    assert_eq!(pending[0].uid, Some(10_300));
    assert_eq!(pending[0].packages[0].name, "com.apex.agent");
    auth.approve(&pending[0].id, Approval::as_listed(&pending[0]))
        .unwrap();
    assert_eq!(
        plugin.execute(Some("echo__echo_text"), Some(r#"{"text":"hi"}"#), &host()),
        r#""hi""#
    );
    let invalid = plugin.execute(Some("echo__echo_text"), Some(r#"{"text":""}"#), &host());
    assert!(
        invalid.starts_with("Error: INVALID_ARGS: invalid arguments for `echo_text`: at `/text`"),
        "{invalid}"
    );
    let direct = CetpV1Host::new(plugin.provider())
        .call(&Request::execute("echo_text", r#"{"text":""}"#), &host());
    assert_eq!(invalid, render(&direct));
    assert_eq!(
        error_code(&plugin.execute(None, None, &host())),
        Some(ErrorCode::ToolNotFound)
    );
    // The bare tool name is not an id under the default scheme.
    assert_eq!(
        error_code(&plugin.execute(Some("echo_text"), None, &host())),
        Some(ErrorCode::ToolNotFound)
    );
}

#[test]
fn gated_discovery_applies_to_metadata_and_tools() {
    let dir = tempfile::tempdir().unwrap();
    let app = App::new("com.example.echo", dir.path());
    let plugin = host_in(app, Auth::user_approval().gate_discovery(true), Apex::new());
    for text in [plugin.metadata_json(&host()), plugin.tools_json(&host())] {
        assert_eq!(error_code(&text), Some(ErrorCode::AuthRequired), "{text}");
        assert!(serde_json::from_str::<Value>(&text).is_err());
    }
    let auth = plugin.provider().authorizer();
    let request = auth.pending().remove(0);
    auth.approve(&request.id, Approval::as_listed(&request))
        .unwrap();
    let tools: Value = serde_json::from_str(&plugin.tools_json(&host())).unwrap();
    assert_eq!(tools[0]["id"], "echo__echo_text");
}

/// A stranger probing tool ids under gated discovery learns nothing: a real id and a made-up one
/// get the same answer, and every probe counts against the refused-call limit.
#[test]
fn under_gated_discovery_unknown_and_known_ids_answer_alike_and_count() {
    let dir = tempfile::tempdir().unwrap();
    let app = App::new("com.example.echo", dir.path());
    let auth = Auth::user_approval()
        .gate_discovery(true)
        .refused_rate_limit(RateLimit::new(10, std::time::Duration::from_secs(3600)));
    let plugin = host_in(app, auth, Apex::new());
    let stranger = Caller::app(10_666, "com.apex.agent.plugins").with_certificate("bb");
    let known = plugin.execute(Some("echo__echo_text"), Some(r#"{"text":"x"}"#), &stranger);
    let unknown = plugin.execute(
        Some("echo__no_such_tool"),
        Some(r#"{"text":"x"}"#),
        &stranger,
    );
    let missing = plugin.execute(None, None, &stranger);
    assert_eq!(error_code(&known), Some(ErrorCode::AuthRequired), "{known}");
    assert_eq!(known, unknown);
    assert_eq!(known, missing);
    assert!(
        !known.contains("echo_text") && !known.contains("`echo`"),
        "no scope or tool name leaks: {known}"
    );
    // 100 guesses: the refused-call limit (10 here) stops them like any refused call.
    let mut limited = 0;
    for guess in 0..100 {
        let answer = plugin.execute(Some(&format!("echo__guess{guess}")), None, &stranger);
        if error_code(&answer) == Some(ErrorCode::RateLimited) {
            limited += 1;
        }
    }
    assert_eq!(
        limited,
        100 - 7,
        "3 refusals above, then 7 more before the limit"
    );
}

#[test]
fn hooks_run_once_per_connection_and_only_for_callers_that_may_discover() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let dir = tempfile::tempdir().unwrap();
    let app = App::new("com.example.echo", dir.path());
    let apex = Apex::new()
        .on_activate(move |c| log.lock().unwrap().push(c.describe()))
        .on_deactivate(|_| panic!("release failed"));
    let gated = Auth::user_approval().gate_discovery(true);
    let plugin = host_in(app, gated, apex);
    let stranger = Caller::app(10_666, "com.apex.agent.plugins").with_certificate("bb");
    for _ in 0..1_040 {
        plugin.activate(&stranger);
    }
    assert!(
        seen.lock().unwrap().is_empty(),
        "no hook for a caller that may not discover"
    );
    assert!(
        plugin.connections().is_empty(),
        "and no connection recorded"
    );

    let auth = plugin.provider().authorizer();
    plugin.activate(&host()); // refused, so it asks: a pending request
    let request = auth.pending_from(Some(10_300)).remove(0);
    auth.approve(&request.id, Approval::as_listed(&request))
        .unwrap();
    for _ in 0..1_040 {
        plugin.activate(&host());
    }
    assert_eq!(
        seen.lock().unwrap().len(),
        1,
        "the hook ran once for 1,040 activations"
    );
    for _ in 0..1_040 {
        plugin.deactivate(&host());
    }
    assert_eq!(
        plugin.hook_failures(),
        1,
        "the panicking hook ran once, contained"
    );
    let hosts = plugin.connections();
    assert_eq!(hosts.len(), 1);
    assert_eq!((hosts[0].activations, hosts[0].active), (1_040, 0));
}

#[test]
fn render_and_error_code_agree() {
    for code in ErrorCode::ALL {
        let text = render(&Response::Error(ToolError::new(code, "m")));
        assert_eq!(error_code(&text), Some(code));
    }
    assert_eq!(error_code("Error: NOPE: x"), None);
    assert_eq!(error_code("\"Error: INVALID_ARGS: x\""), None);
}

/// Open discovery under user approval: 40 apps that activate and never deactivate take the
/// entries of hosts without a grant, and the host the user approved is still counted and runs
/// its hook; when the Service's last binding closes, every open host runs `on_deactivate` once
/// and a stranger is counted again.
#[test]
fn an_approved_host_is_not_crowded_out_and_unbinding_closes_every_host() {
    let activated = Arc::new(Mutex::new(Vec::new()));
    let deactivated = Arc::new(Mutex::new(Vec::new()));
    let (a, d) = (Arc::clone(&activated), Arc::clone(&deactivated));
    let dir = tempfile::tempdir().unwrap();
    let apex = Apex::new()
        .on_activate(move |c| a.lock().unwrap().push(c.uid()))
        .on_deactivate(move |c| d.lock().unwrap().push(c.uid()));
    let plugin = host_in(
        App::new("com.example.echo", dir.path()),
        Auth::user_approval(),
        apex,
    );
    // The agent is approved first (its request comes from a refused call).
    assert!(
        plugin
            .execute(Some("echo__echo_text"), Some(r#"{"text":"hi"}"#), &host())
            .starts_with("Error: AUTH_REQUIRED")
    );
    let auth = plugin.provider().authorizer();
    let request = auth.pending_from(Some(10_300)).remove(0);
    auth.approve(&request.id, Approval::as_listed(&request))
        .unwrap();
    let stranger =
        |n: u32| Caller::app(20_000 + n, format!("com.stranger{n}")).with_certificate("bb");
    for n in 0..40 {
        plugin.activate(&stranger(n));
    }
    plugin.activate(&host());
    let ran = activated.lock().unwrap().clone();
    assert_eq!(ran.len(), 25, "24 strangers and the agent");
    assert_eq!(ran.last(), Some(&Some(10_300)));

    plugin.unbind_all();
    let mut closed = deactivated.lock().unwrap().clone();
    closed.sort_unstable();
    let mut expected: Vec<Option<u32>> = (0..24).map(|n| Some(20_000 + n)).collect();
    expected.push(Some(10_300));
    expected.sort_unstable();
    assert_eq!(closed, expected);
    assert!(plugin.connections().iter().all(|h| h.active == 0));
    plugin.activate(&stranger(39));
    assert_eq!(activated.lock().unwrap().last(), Some(&Some(20_039)));
}
