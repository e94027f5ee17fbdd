//! The oracle of `cetp-validator/tests/oracle/` (included from there), with a provider as the
//! validator under test: a tool that echoes its validated arguments, called through
//! `Agent::execute`, so what is compared is what an agent gets (the `INVALID_ARGS` message
//! included) for the schema the provider advertises.

// Each test binary uses a part of this module.
#![allow(dead_code)]

#[path = "../../cetp-validator/tests/oracle/mod.rs"]
mod oracle;

use std::cell::RefCell;

use cetp_provider::auth::Auth;
use cetp_provider::schemars::{JsonSchema, Schema, SchemaGenerator};
use cetp_provider::testing::Agent;
use cetp_provider::{CallContext, ErrorCode, Provider, Tool, ToolError};
use oracle::{Answer, Subject};
pub use oracle::{Case, run_cases, wrap};
use serde::Deserialize;
use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// A tool whose argument schema is whatever the test sets, and which echoes what it receives.

thread_local! {
    static NEXT_SCHEMA: RefCell<Value> = const { RefCell::new(Value::Null) };
}

#[derive(Deserialize)]
#[serde(transparent)]
struct Raw(Value);

impl JsonSchema for Raw {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Raw".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        NEXT_SCHEMA.with(|s| Schema::try_from(s.borrow().clone()).expect("a schema object"))
    }
}

struct Echo;

impl Tool for Echo {
    type Args = Raw;
    type Output = Value;
    const NAME: &'static str = "echo";
    const DESCRIPTION: &'static str = "Returns its arguments as the validator handed them on.";

    fn call(&self, args: Raw, _: &CallContext) -> Result<Value, ToolError> {
        Ok(args.0)
    }
}

/// A provider whose `echo` tool takes `schema`, or the build error.
pub fn echo_provider(schema: &Value) -> Result<Provider, String> {
    NEXT_SCHEMA.with(|s| *s.borrow_mut() = schema.clone());
    Provider::builder("Oracle")
        .tool(Echo)
        .auth(Auth::open())
        .build()
        .map_err(|e| e.to_string())
}

/// The schema `echo` advertises (after the SDK's normalization).
fn advertised(provider: &Provider) -> Value {
    let tools = Agent::new(provider).list_tools().data_json().unwrap();
    tools["tools"][0]["parameters"].clone()
}

/// The echo tool of a provider, as the validator under test.
struct Echoed(Provider);

impl Subject for Echoed {
    fn answer(&self, value: &Value) -> Answer {
        let answer = Agent::new(&self.0).execute("echo", &value.to_string());
        if answer.is_success() {
            return match answer.data_json() {
                Ok(data) => Answer::Accepted(data),
                Err(e) => Answer::Other(e.to_string()),
            };
        }
        if answer.error_code() != Some(ErrorCode::InvalidArgs) {
            return Answer::Other(answer.to_string());
        }
        let message = answer.error_message().unwrap_or("");
        let Some(detail) = message
            .strip_prefix("invalid arguments for `echo`: ")
            .and_then(|m| m.rsplit_once(". Expected ").map(|(detail, _)| detail))
        else {
            return Answer::Other(format!("unexpected message {message}"));
        };
        let (listed, more) = match detail.rsplit_once(" (and ") {
            Some((listed, more)) if more.ends_with(" more)") => (
                listed,
                more.trim_end_matches(" more)")
                    .parse::<usize>()
                    .unwrap_or(0),
            ),
            _ => (detail, 0),
        };
        let mut mine: Vec<String> = listed.split("; at `").map(str::to_owned).collect();
        for m in mine.iter_mut().skip(1) {
            m.insert_str(0, "at `");
        }
        Answer::Refused { listed: mine, more }
    }
}

/// A case for `schema` through the echo tool of a provider built with it, compared with the
/// oracle on the schema the provider advertises.
pub fn case(name: &str, schema: &Value, compare_messages: bool) -> Case {
    let provider = echo_provider(schema)
        .unwrap_or_else(|e| panic!("{name}: the provider refused {schema}: {e}"));
    let advertised = advertised(&provider);
    Case::new(
        name,
        Box::new(Echoed(provider)),
        advertised,
        compare_messages,
    )
}

/// Compares the validator with the oracle on every tool (arguments and results) of `provider`,
/// through a provider built with the tool's advertised schema.
pub fn check_provider(sample: &str, provider: &Provider, per_schema: u32) {
    let tools = Agent::new(provider).list_tools().data_json().unwrap();
    let mut cases = Vec::new();
    for tool in tools["tools"].as_array().unwrap() {
        let name = format!("{sample}/{}", tool["name"].as_str().unwrap());
        cases.push(case(&name, &tool["parameters"], true));
        if let Some(output) = tool.get("output_schema") {
            cases.push(case(
                &format!("{name} (output)"),
                &wrap(output.clone()),
                true,
            ));
        }
    }
    assert!(!cases.is_empty());
    run_cases(&cases, per_schema);
}
