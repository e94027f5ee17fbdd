//! The JSON Schema 2020-12 validator of `cetp-provider`: a schema compiled once into a tree of
//! checks, then any number of values checked against it, each violation reported with the JSON
//! pointer of the value and a message a model can act on.
//!
//! Every keyword a schema may carry is enforced, and a schema with one that is not
//! (`unevaluatedProperties`, the reference keywords, an unknown keyword or `format`) does not
//! compile: the [`SchemaError`] names the keyword and its JSON pointer, so nothing is accepted
//! unchecked. Lengths count Unicode code points, numbers compare exactly whatever their JSON
//! spelling, and an integer written as `1.0` or `-0` satisfies `"type": "integer"` (and can be
//! rewritten as an integer, [`Validator::integers`]).
//!
//! Every `format` JSON Schema 2020-12 defines is checked (`format`, `hostname`, `uri`).
//! `pattern` and `patternProperties` are ECMA-262 regular expressions (`ecma`), run on the
//! `regex-lite` engine, which matches in time linear in the input: a caller cannot make one check
//! cost seconds of CPU with a crafted value. A linear-time engine has no backreferences (`\1`)
//! and no lookaround (`(?=…)`, `(?<!…)`), and `regex-lite` has no Unicode property classes
//! (`\p{L}`); a schema using them does not compile, and the error names the pattern and its
//! place.
//!
//! ```
//! use cetp_validator::Validator;
//! use serde_json::json;
//!
//! let schema = json!({
//!     "type": "object",
//!     "properties": {"limit": {"type": "integer", "maximum": 100}},
//! });
//! let validator = Validator::new(&schema).unwrap();
//! let report = validator.validate(&json!({"limit": 500}), 5);
//! assert_eq!(report.total(), 1);
//! assert_eq!(report.violations()[0].path(), "/limit");
//! assert_eq!(
//!     report.violations()[0].message(),
//!     "500 is greater than the maximum of 100"
//! );
//! ```

#![deny(missing_docs)]

// The README's examples compile and run with the crate's doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod ecma;
mod format;
mod hostname;
mod node;
mod num;
mod unicode;
mod uri;

use std::fmt;

use serde_json::Value;

use node::{Node, Path};
pub use node::{Report, Violation};

/// A compiled schema.
#[derive(Debug)]
pub struct Validator {
    root: Node,
}

/// Why a schema does not compile: the keyword or pattern at fault and its JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError(String);

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SchemaError {}

impl Validator {
    /// Compiles `schema`. Fails, naming the keyword and its JSON pointer, if the schema has a
    /// keyword or `format` the validator does not check, or a pattern the linear-time engine
    /// cannot compile.
    pub fn new(schema: &Value) -> Result<Validator, SchemaError> {
        node::compile(schema)
            .map(|root| Validator { root })
            .map_err(SchemaError)
    }

    /// Checks `value`: every violation is counted, the first `limit` are written out.
    pub fn validate(&self, value: &Value, limit: usize) -> Report {
        let mut report = Report::keeping(limit);
        self.root.check(value, &Path::Root, &mut report);
        report
    }

    /// Removes `"key": null` where `key` is an optional property (models often send them),
    /// recursively along `properties` and `items`.
    pub fn drop_null_optionals(&self, value: &mut Value) {
        self.root.drop_null_optionals(value);
    }

    /// Rewrites integer-valued floats (`1.0`, `-0.0`) as integers where the schema admits only
    /// integers, so a Rust integer type deserializes them. `value` must satisfy the schema; the
    /// work is needed only if its [`Report::floats_as_integers`] says so.
    pub fn integers(&self, value: &mut Value) {
        self.root.integers(value);
    }
}

impl Report {
    /// Whether the value satisfies the schema.
    pub fn is_valid(&self) -> bool {
        self.total == 0
    }

    /// The first violations, as many as the limit given to [`Validator::validate`].
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// How many violations there are in all.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Whether a float was checked where only integers are admitted: [`Validator::integers`]
    /// has work to do.
    pub fn floats_as_integers(&self) -> bool {
        self.floats_as_integers
    }
}

impl Violation {
    /// The JSON pointer of the value at fault (empty for the value itself).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}
