//! Argument schemas: generated with schemars, then normalized into the subset of JSON Schema
//! that every LLM tool-calling API accepts.
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
//! - non-standard numeric `format`s (`int32`, `uint64`, `double`, …) are dropped;
//! - every object with `properties` is closed (`additionalProperties: false`), because the
//!   arguments are validated against exactly this schema;
//! - keys come in a reading order: `type`, `description`, `enum`, `properties`, `required`, …
//!
//! schemars generates the schema with every subschema inlined, turns `const` into `enum`
//! ([`schemars::transform::ReplaceConstValue`]) and keeps only the formats JSON Schema defines
//! ([`schemars::transform::RestrictFormats`]); the other rewrites are
//! [`schemars::transform::Transform`]s of this crate, applied in the generator's settings.

mod normalize;

pub(crate) use normalize::parameters_schema;

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
