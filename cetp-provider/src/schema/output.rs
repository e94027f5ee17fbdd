//! Results checked against the advertised `output_schema`, in debug builds.

use serde_json::Value;

use super::SchemaError;
use crate::error::ToolError;
#[cfg(debug_assertions)]
use crate::error::provider_bug;

/// Checks a tool's serialized results against its output schema when `debug_assertions` are
/// on (tests and debug builds); a release build advertises the schema and checks nothing.
pub(crate) struct OutputCheck {
    #[cfg(debug_assertions)]
    validator: Option<cetp_validator::Validator>,
}

impl OutputCheck {
    /// Compiles `schema` (debug builds only).
    pub(crate) fn new(schema: Option<&Value>) -> Result<Self, SchemaError> {
        #[cfg(debug_assertions)]
        {
            let validator = schema
                .map(|schema| {
                    cetp_validator::Validator::new(schema)
                        .map_err(|e| SchemaError::Invalid(format!("output schema: {e}")))
                })
                .transpose()?;
            Ok(OutputCheck { validator })
        }
        #[cfg(not(debug_assertions))]
        {
            let _ = schema;
            Ok(OutputCheck {})
        }
    }

    /// Passes `data` (the result of `tool` as JSON text) through, or, in a debug build, fails
    /// with an internal error naming the first place where it breaks the output schema.
    pub(crate) fn check(&self, tool: &str, data: String) -> Result<String, ToolError> {
        #[cfg(debug_assertions)]
        if let Some(validator) = &self.validator {
            let value: Value = serde_json::from_str(&data).map_err(|e| {
                provider_bug(format_args!("the result of `{tool}` is not JSON: {e}"))
            })?;
            let report = validator.validate(&value, 1);
            if let Some(violation) = report.violations().first() {
                let at = if violation.path().is_empty() {
                    "/"
                } else {
                    violation.path()
                };
                let error = violation.message();
                // Where and why stay out of the log: both may quote the result's data.
                log::error!("the result of `{tool}` does not match its output schema");
                return Err(provider_bug(format_args!(
                    "the result of `{tool}` does not match the output schema the provider \
                     advertises (at {at}: {error})"
                )));
            }
        }
        let _ = tool;
        Ok(data)
    }
}

#[cfg(all(test, debug_assertions))]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_result_that_breaks_its_schema_is_an_internal_error() {
        let schema = json!({"type": "array", "items": {"type": "string"}});
        let check = OutputCheck::new(Some(&schema)).unwrap();
        assert_eq!(check.check("t", r#"["a"]"#.into()).unwrap(), r#"["a"]"#);
        let err = check.check("t", r#"["a", 2]"#.into()).unwrap_err();
        assert!(err.to_string().contains("at /1"), "{err}");
        let none = OutputCheck::new(None).unwrap();
        assert_eq!(none.check("t", "2".into()).unwrap(), "2");
    }
}
