//! Property test: whatever a caller sends, `CetpV1Host::call` answers with a well-formed CETP
//! envelope and nothing panics out.

mod common;

use std::sync::OnceLock;

use cetp_provider::host::{CetpV1Host, Request};
use cetp_provider::{Caller, Provider, Response, wire};
use proptest::prelude::*;
use serde_json::Value;

fn provider() -> &'static Provider {
    static PROVIDER: OnceLock<Provider> = OnceLock::new();
    PROVIDER.get_or_init(|| {
        // `explode` panics on purpose, hundreds of times; keep those out of the output.
        let default_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !info.to_string().contains(common::EXPLODE_MESSAGE) {
                default_hook(info);
            }
        }));
        common::provider()
    })
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("query".to_owned()),
                    Just("limit".to_owned()),
                    Just("kind".to_owned()),
                    Just("id".to_owned()),
                    Just("kib".to_owned()),
                    ".{0,6}"
                ],
                inner,
                0..5
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn method() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(wire::METHOD_EXECUTE_TOOL.to_owned()),
        Just(wire::METHOD_LIST_TOOLS.to_owned()),
        Just(wire::METHOD_GET_PROVIDER_INFO.to_owned()),
        ".{0,20}",
    ]
}

fn tool_name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("search".to_owned()),
        Just("get_note".to_owned()),
        Just("explode".to_owned()),
        Just("huge".to_owned()),
        ".{0,20}",
    ]
}

fn args_text() -> impl Strategy<Value = String> {
    prop_oneof![
        json_value().prop_map(|v| v.to_string()),
        ".{0,40}",
        // Valid-looking search arguments with arbitrary values.
        (".{0,120}", any::<i64>())
            .prop_map(|(q, l)| { serde_json::json!({"query": q, "limit": l}).to_string() }),
        // Small `huge` requests, to keep the run fast.
        (0usize..300).prop_map(|k| format!(r#"{{"kib":{k}}}"#)),
    ]
}

/// The three CETP extras, each absent or arbitrary.
type Extras = (Option<String>, Option<String>, Option<String>);

fn extras() -> impl Strategy<Value = Extras> {
    (
        prop::option::of(tool_name()),
        prop::option::of(args_text()),
        prop::option::of(".{0,40}"),
    )
}

fn check_envelope(answer: &Response) -> Result<(), TestCaseError> {
    match answer.get(wire::KEY_STATUS) {
        Some(wire::STATUS_SUCCESS) => {
            let data = answer.get(wire::KEY_DATA);
            prop_assert!(data.is_some(), "success without data: {answer:?}");
            prop_assert!(
                serde_json::from_str::<Value>(data.unwrap()).is_ok(),
                "data is not JSON: {answer:?}"
            );
            prop_assert!(answer.get(wire::KEY_ERROR_CODE).is_none());
        }
        Some(wire::STATUS_ERROR) => {
            prop_assert!(answer.error_code().is_some(), "bad code: {answer:?}");
            prop_assert!(!answer.error_message().unwrap_or("").is_empty());
            prop_assert!(answer.get(wire::KEY_DATA).is_none());
        }
        other => prop_assert!(false, "bad status {other:?}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn every_answer_is_a_well_formed_envelope(
        method in method(),
        (tool_name, args, request_id) in extras(),
    ) {
        let request = Request {
            method: &method,
            tool_name: tool_name.as_deref(),
            args: args.as_deref(),
            request_id: request_id.as_deref(),
        };
        let answer = CetpV1Host::new(provider()).call(&request, &Caller::unknown());
        check_envelope(&answer)?;
    }
}
