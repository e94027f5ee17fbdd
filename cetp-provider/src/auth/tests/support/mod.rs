//! Shared fixtures of the authorization tests: hand-written tools (the `#[tool]` macro is not needed)
//! and callers.
#![allow(dead_code)]

pub mod sim_fs;

use cetp_provider::Response;
use cetp_provider::auth::{Approval, Auth, PendingRequest};
use cetp_provider::testing::Agent;
use cetp_provider::{CallContext, Caller, Provider, ProviderBuilder, Tool, ToolError};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

pub const CERT_A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
pub const CERT_B: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
pub const CERT_EVIL: &str = "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee";
pub const AGENT: &str = "com.example.agent";

#[derive(Deserialize, JsonSchema)]
pub struct NoArgs {}

fn report(ctx: &CallContext) -> Value {
    json!({
        "tool": ctx.tool_name(),
        "access": if ctx.access().is_limited() { "limited" } else { "full" },
        "packages": ctx.caller().package_names().collect::<Vec<_>>(),
    })
}

/// Needs `notes`.
pub struct ReadNotes;
impl Tool for ReadNotes {
    type Args = NoArgs;
    type Output = Value;
    const NAME: &'static str = "read_notes";
    const DESCRIPTION: &'static str = "Reads the notes.";
    const SCOPES: &'static [&'static str] = &["notes"];
    fn call(&self, _: NoArgs, ctx: &CallContext) -> Result<Value, ToolError> {
        Ok(report(ctx))
    }
}

/// Needs `notes` and `calendar`.
pub struct Agenda;
impl Tool for Agenda {
    type Args = NoArgs;
    type Output = Value;
    const NAME: &'static str = "agenda";
    const DESCRIPTION: &'static str = "Reads notes and calendar.";
    const SCOPES: &'static [&'static str] = &["notes", "calendar"];
    fn call(&self, _: NoArgs, ctx: &CallContext) -> Result<Value, ToolError> {
        Ok(report(ctx))
    }
}

/// Needs no scope.
pub struct Ping;
impl Tool for Ping {
    type Args = NoArgs;
    type Output = Value;
    const NAME: &'static str = "ping";
    const DESCRIPTION: &'static str = "Answers pong.";
    fn call(&self, _: NoArgs, ctx: &CallContext) -> Result<Value, ToolError> {
        Ok(report(ctx))
    }
}

/// The test provider "Notes" with scopes `notes` and `calendar` and the three tools.
pub fn builder() -> ProviderBuilder {
    Provider::builder("Notes")
        .description("Test notes")
        .scope("notes", "your notes")
        .scope("calendar", "your calendar events")
        .tool(ReadNotes)
        .tool(Agenda)
        .tool(Ping)
}

pub fn provider(auth: Auth) -> Provider {
    builder().auth(auth).build().expect("valid provider")
}

/// The agent app, signed with CERT_A.
pub fn agent() -> Caller {
    Caller::app(10_001, AGENT).with_certificate(CERT_A)
}

/// A shared UID holding a helper package and the agent (both properly signed).
pub fn shared_uid() -> Caller {
    Caller::app(10_002, "com.example.helper")
        .with_certificate(CERT_B)
        .with_package(AGENT)
        .with_certificate(CERT_A)
}

/// An app installed under the agent's name, signed by someone else.
pub fn spoofed() -> Caller {
    Caller::app(10_003, AGENT).with_certificate(CERT_EVIL)
}

/// An app nobody approved.
pub fn stranger() -> Caller {
    Caller::app(10_004, "com.example.stranger").with_certificate(CERT_B)
}

pub fn call(provider: &Provider, caller: &Caller, tool: &str) -> Response {
    Agent::new(provider)
        .as_caller(caller.clone())
        .execute(tool, "{}")
}

/// Calls `tool` as `caller`, expects AUTH_REQUIRED, and approves the resulting pending request
/// with the approval `choose` makes of it.
pub fn approve(
    provider: &Provider,
    caller: &Caller,
    tool: &str,
    choose: impl FnOnce(&PendingRequest) -> Approval,
) {
    let answer = call(provider, caller, tool);
    assert_eq!(
        answer.error_code(),
        Some(cetp_provider::ErrorCode::AuthRequired),
        "{answer}"
    );
    let id = pending_id_for(provider, caller);
    provider
        .authorizer()
        .approve(&id, listed_with(provider, &id, choose))
        .expect("approve the recorded request");
}

/// Approves exactly what pending request `id` lists, as the screen shows it.
pub fn listed(provider: &Provider, id: &str) -> Approval {
    listed_with(provider, id, Approval::as_listed)
}

fn listed_with(
    provider: &Provider,
    id: &str,
    choose: impl FnOnce(&PendingRequest) -> Approval,
) -> Approval {
    let request = provider
        .authorizer()
        .pending()
        .into_iter()
        .find(|p| p.id == id)
        .expect("the request is pending");
    choose(&request)
}

/// The id of the pending request recorded for `caller`.
pub fn pending_id_for(provider: &Provider, caller: &Caller) -> String {
    provider
        .authorizer()
        .pending()
        .into_iter()
        .find(|p| p.uid == caller.uid())
        .map(|p| p.id)
        .expect("a pending request for the caller")
}
