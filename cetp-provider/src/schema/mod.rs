//! Tool schemas: generated with schemars and normalized for LLM tool-calling APIs.
//!
//! # What the normalized schema is
//!
//! OpenAI's and Anthropic's function calling (without strict mode) accept it as it is. No one
//! schema satisfies every API: OpenAI's strict mode wants every property `required` (optional
//! ones typed `["T","null"]`), Anthropic's strict mode rejects numeric and length bounds, and
//! Gemini's `FunctionDeclaration.parameters` (an OpenAPI subset) has no
//! `additionalProperties`. Agents and gateways adapt schemas per model; the tooling crate
//! `cetp-schema-report` (behind `cargo cetp check`; an app never needs it) says exactly which
//! keyword at which path each API would reject, with the rules kept as data. Because a cleaning step can
//! drop a constraint, constraints are also restated in the descriptions
//! ([`crate::ProviderBuilder::restate_constraints`]); the provider enforces every keyword
//! whatever the model saw.
//!
//! The normalized form:
//! - the root is `{"type":"object","properties":{…},"required":[…],"additionalProperties":false}`,
//!   with `properties` present even when empty and `required` omitted when empty;
//! - no `$schema`, no root `title`, no `$ref`/`$defs` (every reference is inlined; a recursive
//!   type is a [`SchemaError::Recursive`]);
//! - no `nullable`, no `["T","null"]` type arrays, no `anyOf` with a `null` branch: an optional
//!   value is simply not `required`;
//! - a `default` of `null` (what an optional parameter defaults to anyway) is dropped;
//! - `const` becomes a one-value `enum`; a `oneOf` of documented unit variants becomes one
//!   `enum`, with the variant docs appended to the description;
//! - only the `format`s JSON Schema defines are kept (schemars' `int32`, `uint64`, `double`, …
//!   are dropped);
//! - every object with `properties` is closed (`additionalProperties: false`), because the
//!   arguments are validated against exactly this schema;
//! - keys come in a reading order: `type`, `description`, `enum`, `properties`, `required`, …
//!
//! schemars generates the schema with every subschema inlined, turns `const` into `enum`
//! ([`schemars::transform::ReplaceConstValue`]) and keeps only the formats JSON Schema defines
//! ([`schemars::transform::RestrictFormats`]); the other rewrites are
//! [`schemars::transform::Transform`]s of this crate, applied in the generator's settings.
//!
//! # Results
//!
//! When a tool's result type implements `JsonSchema`, [`output_schema`] gives its normalized
//! schema; `list_tools` advertises it as `output_schema` and debug builds check every result
//! against it (a mismatch is an `INTERNAL_ERROR`, a bug in the app).

mod describe;
mod normalize;
mod output;
pub(crate) mod probe;

pub(crate) use describe::restate_constraints;
pub(crate) use normalize::parameters_schema;
pub(crate) use output::OutputCheck;

/// The normalized JSON Schema of a result type, as `#[tool]` advertises it in `output_schema`:
/// the same rules as the arguments (inlined, no null branches, closed objects), but any JSON
/// type may be at the root.
///
/// ```
/// use serde_json::json;
/// let schema = cetp_provider::schema::output_schema::<Vec<String>>().unwrap();
/// assert_eq!(schema, json!({"type": "array", "items": {"type": "string"}}));
/// ```
///
/// # Errors
/// [`SchemaError::Recursive`] for a type that refers to itself.
pub fn output_schema<T: schemars::JsonSchema + ?Sized>() -> Result<serde_json::Value, SchemaError> {
    normalize::output_schema::<T>()
}

/// Why a tool's argument schema could not be produced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    /// The argument type refers to itself; LLM clients cannot use `$ref`, so it cannot be inlined.
    #[error(
        "the argument type `{0}` is recursive; tool schemas are inlined for LLM clients, so break the cycle (for example with a flat list and ids)"
    )]
    Recursive(String),
    /// The generated schema is not valid JSON Schema.
    #[error("the generated schema is invalid: {0}")]
    Invalid(String),
    /// The arguments are not a JSON object (a tool's arguments always are).
    #[error("tool arguments must be an object with named fields, but the schema is {0}")]
    NotAnObject(String),
}
