//! How `#[tool]` finds out whether a result type implements `JsonSchema`, without
//! specialization: method resolution on `&&OutputProbe<T>` picks [`WithSchema`] when
//! `T: JsonSchema` and falls back to [`WithoutSchema`] one auto-deref later. It works because
//! the macro writes the call with the concrete result type.

use std::marker::PhantomData;

use serde_json::Value;

use super::SchemaError;

/// What [`crate::Tool::output_schema`] returns.
pub type OutputSchema = Option<Result<Value, SchemaError>>;

/// A stand-in value that carries the result type.
pub struct OutputProbe<T: ?Sized>(PhantomData<T>);

impl<T: ?Sized> OutputProbe<T> {
    /// The probe.
    pub const NEW: Self = OutputProbe(PhantomData);
}

/// Chosen when `T: JsonSchema`: the normalized schema.
pub trait WithSchema {
    /// The output schema.
    fn output_schema(&self) -> OutputSchema;
}

impl<T: schemars::JsonSchema + ?Sized> WithSchema for &OutputProbe<T> {
    fn output_schema(&self) -> OutputSchema {
        Some(super::output_schema::<T>())
    }
}

/// Chosen otherwise: no schema.
pub trait WithoutSchema {
    /// No output schema.
    fn output_schema(&self) -> OutputSchema;
}

impl<T: ?Sized> WithoutSchema for OutputProbe<T> {
    fn output_schema(&self) -> OutputSchema {
        None
    }
}
