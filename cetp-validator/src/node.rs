//! A JSON Schema 2020-12 compiled into a tree of checks, and the checks themselves.
//!
//! Every assertion and applicator of the 2020-12 vocabularies is enforced except the
//! reference keywords (`$ref` and its kin: normalized schemas are inlined) and
//! `unevaluatedProperties` / `unevaluatedItems`; a schema using one of those, a keyword outside
//! the vocabularies, or a `format` not checked here does not compile, so nothing a provider
//! advertises goes unchecked. Annotations (`title`, `description`, `default`, `examples`, …)
//! and `x-` extensions are allowed and ignored.

use std::fmt::{self, Write as _};

use serde_json::{Map, Number, Value};

use super::ecma::{self, PatternError};
use super::format::Format;
use super::num::{self, Decimal, Num};

/// A compiled (sub)schema.
#[derive(Debug)]
pub(crate) enum Node {
    /// `true` or `{}`: anything is valid.
    Any,
    /// `false`: nothing is.
    Never,
    Rules(Box<Rules>),
}

/// The keywords of one schema object, ready to check.
#[derive(Debug, Default)]
pub(crate) struct Rules {
    /// `type` or an `enum`/`const` of integers admits only integers here (see `integers`).
    integers_only: bool,
    types: Option<Types>,
    constant: Option<Value>,
    enumeration: Option<Vec<Value>>,
    minimum: Option<Bound>,
    maximum: Option<Bound>,
    exclusive_minimum: Option<Bound>,
    exclusive_maximum: Option<Bound>,
    multiple_of: Option<Multiple>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    min_properties: Option<u64>,
    max_properties: Option<u64>,
    required: Vec<String>,
    dependent_required: Vec<(String, Vec<String>)>,
    pattern: Option<Pattern>,
    format: Option<Format>,
    unique_items: bool,
    properties: Vec<(String, Node)>,
    pattern_properties: Vec<(Pattern, Node)>,
    additional_properties: Option<Node>,
    property_names: Option<Node>,
    prefix_items: Vec<Node>,
    items: Option<Node>,
    contains: Option<Contains>,
    dependent_schemas: Vec<(String, Node)>,
    all_of: Vec<Node>,
    any_of: Vec<Node>,
    one_of: Vec<Node>,
    not: Option<(Node, Value)>,
    condition: Option<Condition>,
}

/// The JSON types of `type`, in the order messages list them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Types(u8);

const TYPE_NAMES: [&str; 7] = [
    "null", "boolean", "integer", "number", "string", "array", "object",
];

impl Types {
    const NULL: u8 = 1;
    const BOOLEAN: u8 = 1 << 1;
    const INTEGER: u8 = 1 << 2;
    const NUMBER: u8 = 1 << 3;
    const STRING: u8 = 1 << 4;
    const ARRAY: u8 = 1 << 5;
    const OBJECT: u8 = 1 << 6;

    fn named(name: &str) -> Option<Types> {
        TYPE_NAMES
            .iter()
            .position(|known| *known == name)
            .map(|i| Types(1 << i))
    }

    fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    fn admits(self, value: &Value) -> bool {
        let bit = match value {
            Value::Null => Types::NULL,
            Value::Bool(_) => Types::BOOLEAN,
            Value::Number(n) => {
                return self.has(Types::NUMBER)
                    || (self.has(Types::INTEGER) && Num::of(n).is_integer());
            }
            Value::String(_) => Types::STRING,
            Value::Array(_) => Types::ARRAY,
            Value::Object(_) => Types::OBJECT,
        };
        self.has(bit)
    }

    /// Only integers: a float with no fraction is handed on as an integer.
    fn integer_only(self) -> bool {
        self.has(Types::INTEGER) && !self.has(Types::NUMBER)
    }

    /// The names, in message order.
    fn names(self) -> impl Iterator<Item = &'static str> {
        TYPE_NAMES
            .iter()
            .enumerate()
            .filter(move |(i, _)| self.has(1 << i))
            .map(|(_, name)| *name)
    }
}

#[derive(Debug)]
struct Bound {
    limit: Value,
    num: Num,
}

#[derive(Debug)]
struct Multiple {
    display: f64,
    decimal: Decimal,
}

#[derive(Debug)]
pub(crate) struct Pattern {
    source: String,
    regex: regex_lite::Regex,
}

#[derive(Debug)]
struct Contains {
    node: Node,
    min: u64,
    max: Option<u64>,
}

#[derive(Debug)]
struct Condition {
    test: Node,
    then: Option<Node>,
    otherwise: Option<Node>,
}

/// Keywords that only annotate: allowed, never checked.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

/// The dialect every schema is checked in.
const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// Where a keyword sits in the schema, as a JSON pointer.
struct Pointer(String);

impl Pointer {
    fn push(&mut self, token: &str) -> usize {
        let len = self.0.len();
        self.0.push('/');
        for c in token.chars() {
            match c {
                '~' => self.0.push_str("~0"),
                '/' => self.0.push_str("~1"),
                c => self.0.push(c),
            }
        }
        len
    }
}

/// Compiles a schema; the error names the keyword and its JSON pointer.
pub(crate) fn compile(schema: &Value) -> Result<Node, String> {
    compile_at(schema, &mut Pointer(String::new()))
}

fn compile_at(schema: &Value, at: &mut Pointer) -> Result<Node, String> {
    let object = match schema {
        Value::Bool(true) => return Ok(Node::Any),
        Value::Bool(false) => return Ok(Node::Never),
        Value::Object(object) => object,
        other => {
            return Err(format!(
                "the schema at `{}` is {other}, but a schema is an object or a boolean",
                shown(at)
            ));
        }
    };
    let mut rules = Rules::default();
    let mut contains_bounds = (None, None);
    let mut condition = (None, None, None);
    for (keyword, value) in object {
        let mark = at.push(keyword);
        compile_keyword(
            &mut rules,
            &mut contains_bounds,
            &mut condition,
            keyword,
            value,
            at,
        )?;
        at.0.truncate(mark);
    }
    if let Some(contains) = &mut rules.contains {
        contains.min = contains_bounds.0.unwrap_or(1);
        contains.max = contains_bounds.1;
    }
    rules.integers_only = rules.types.is_some_and(Types::integer_only)
        || rules
            .enumeration
            .iter()
            .flatten()
            .chain(&rules.constant)
            .any(|option| option.is_i64() || option.is_u64());
    if let (Some(test), then, otherwise) = condition {
        rules.condition = Some(Condition {
            test,
            then,
            otherwise,
        });
    }
    Ok(if object.is_empty() {
        Node::Any
    } else {
        Node::Rules(Box::new(rules))
    })
}

fn shown(at: &Pointer) -> &str {
    if at.0.is_empty() { "/" } else { &at.0 }
}

type ContainsBounds = (Option<u64>, Option<u64>);
type Branches = (Option<Node>, Option<Node>, Option<Node>);

fn compile_keyword(
    rules: &mut Rules,
    contains_bounds: &mut ContainsBounds,
    condition: &mut Branches,
    keyword: &str,
    value: &Value,
    at: &mut Pointer,
) -> Result<(), String> {
    let here = at.0.clone();
    let must = |what: &str| format!("`{keyword}` at `{here}` must be {what}, not {value}");
    match keyword {
        "type" => {
            let names: Vec<&Value> = match value {
                Value::Array(names) if !names.is_empty() => names.iter().collect(),
                Value::String(_) => vec![value],
                _ => return Err(must("a type name or a non-empty array of them")),
            };
            let mut types = Types(0);
            for name in names {
                let one = name.as_str().and_then(Types::named).ok_or_else(|| {
                    must("made of null, boolean, integer, number, string, array or object")
                })?;
                types.0 |= one.0;
            }
            rules.types = Some(types);
        }
        "const" => rules.constant = Some(value.clone()),
        "enum" => match value {
            Value::Array(values) => rules.enumeration = Some(values.clone()),
            _ => return Err(must("an array")),
        },
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
            let Value::Number(n) = value else {
                return Err(must("a number"));
            };
            let bound = Some(Bound {
                limit: value.clone(),
                num: Num::of(n),
            });
            match keyword {
                "minimum" => rules.minimum = bound,
                "maximum" => rules.maximum = bound,
                "exclusiveMinimum" => rules.exclusive_minimum = bound,
                _ => rules.exclusive_maximum = bound,
            }
        }
        "multipleOf" => match value {
            Value::Number(n) if n.as_f64().is_some_and(|f| f > 0.0) => {
                rules.multiple_of = Some(Multiple {
                    display: n.as_f64().unwrap_or(1.0),
                    decimal: Decimal::of(Num::of(n)),
                });
            }
            _ => return Err(must("a number greater than 0")),
        },
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties"
        | "minContains" | "maxContains" => {
            let count = match value {
                Value::Number(n) => count(n),
                _ => None,
            }
            .ok_or_else(|| must("a non-negative integer"))?;
            match keyword {
                "minLength" => rules.min_length = Some(count),
                "maxLength" => rules.max_length = Some(count),
                "minItems" => rules.min_items = Some(count),
                "maxItems" => rules.max_items = Some(count),
                "minProperties" => rules.min_properties = Some(count),
                "maxProperties" => rules.max_properties = Some(count),
                "minContains" => contains_bounds.0 = Some(count),
                _ => contains_bounds.1 = Some(count),
            }
        }
        "required" => rules.required = names(value).ok_or_else(|| must("an array of strings"))?,
        "dependentRequired" => {
            let Value::Object(map) = value else {
                return Err(must("an object of string arrays"));
            };
            for (name, needed) in map {
                let needed = names(needed).ok_or_else(|| must("an object of string arrays"))?;
                rules.dependent_required.push((name.clone(), needed));
            }
        }
        "pattern" => {
            let Value::String(source) = value else {
                return Err(must("a string"));
            };
            rules.pattern = Some(pattern(source, &at.0)?);
        }
        "format" => {
            let Value::String(name) = value else {
                return Err(must("a string"));
            };
            let format = Format::named(name).ok_or_else(|| {
                let known: Vec<&str> = Format::ALL.iter().map(|(name, _)| *name).collect();
                format!(
                    "format `{name}` at `{}` is not one this SDK checks (it checks {}); remove it, or check the value in the tool",
                    at.0,
                    known.join(", ")
                )
            })?;
            rules.format = Some(format);
        }
        "uniqueItems" => match value {
            Value::Bool(unique) => rules.unique_items = *unique,
            _ => return Err(must("a boolean")),
        },
        "properties" => rules.properties = subschema_map(value, at, &must)?,
        "patternProperties" => {
            let Value::Object(map) = value else {
                return Err(must("an object of schemas"));
            };
            let keyword_at = at.0.clone();
            for (source, schema) in map {
                let compiled = pattern(source, &keyword_at)?;
                let mark = at.push(source);
                let node = compile_at(schema, at)?;
                at.0.truncate(mark);
                rules.pattern_properties.push((compiled, node));
            }
        }
        "additionalProperties" => rules.additional_properties = Some(compile_at(value, at)?),
        "propertyNames" => rules.property_names = Some(compile_at(value, at)?),
        "prefixItems" => {
            let Value::Array(schemas) = value else {
                return Err(must("an array of schemas"));
            };
            rules.prefix_items = subschema_list(schemas, at)?;
        }
        "items" => match value {
            Value::Array(_) => {
                return Err(format!(
                    "`items` at `{}` is an array, the tuple form of older drafts; JSON Schema 2020-12 writes it as `prefixItems`",
                    at.0
                ));
            }
            _ => rules.items = Some(compile_at(value, at)?),
        },
        "contains" => {
            rules.contains = Some(Contains {
                node: compile_at(value, at)?,
                min: 1,
                max: None,
            });
        }
        "dependentSchemas" => rules.dependent_schemas = subschema_map(value, at, &must)?,
        "allOf" | "anyOf" | "oneOf" => {
            let list = match value {
                Value::Array(schemas) if !schemas.is_empty() => subschema_list(schemas, at)?,
                _ => return Err(must("a non-empty array of schemas")),
            };
            match keyword {
                "allOf" => rules.all_of = list,
                "anyOf" => rules.any_of = list,
                _ => rules.one_of = list,
            }
        }
        "not" => rules.not = Some((compile_at(value, at)?, value.clone())),
        "if" => condition.0 = Some(compile_at(value, at)?),
        "then" => condition.1 = Some(compile_at(value, at)?),
        "else" => condition.2 = Some(compile_at(value, at)?),
        "$schema" if value == DRAFT_2020_12 => {}
        "$schema" => {
            return Err(format!(
                "`$schema` at `{}` is {value}; schemas are checked as JSON Schema 2020-12 (`{DRAFT_2020_12}`)",
                at.0
            ));
        }
        "$ref" | "$dynamicRef" | "$recursiveRef" | "$defs" | "definitions" | "$id" | "$anchor"
        | "$dynamicAnchor" | "$recursiveAnchor" | "$vocabulary" => {
            return Err(format!(
                "`{keyword}` at `{}`: references are not supported; inline the subschema",
                at.0
            ));
        }
        annotation if ANNOTATIONS.contains(&annotation) || annotation.starts_with("x-") => {}
        other => {
            return Err(format!(
                "`{other}` at `{}` is a keyword this SDK does not check, so values breaking it would get through; remove it, or check the value in the tool",
                at.0
            ));
        }
    }
    Ok(())
}

/// A non-negative integer keyword value (`2.0` counts, as JSON Schema says).
fn count(n: &Number) -> Option<u64> {
    n.as_u64().or_else(|| {
        n.as_f64()
            .filter(|f| *f >= 0.0 && f.fract() == 0.0 && *f < 1.8e19)
            .map(|f| f as u64)
    })
}

fn names(value: &Value) -> Option<Vec<String>> {
    value
        .as_array()?
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}

fn subschema_map(
    value: &Value,
    at: &mut Pointer,
    must: &dyn Fn(&str) -> String,
) -> Result<Vec<(String, Node)>, String> {
    let Value::Object(map) = value else {
        return Err(must("an object of schemas"));
    };
    let mut out = Vec::with_capacity(map.len());
    for (name, schema) in map {
        let mark = at.push(name);
        out.push((name.clone(), compile_at(schema, at)?));
        at.0.truncate(mark);
    }
    Ok(out)
}

fn subschema_list(schemas: &[Value], at: &mut Pointer) -> Result<Vec<Node>, String> {
    let mut out = Vec::with_capacity(schemas.len());
    for (i, schema) in schemas.iter().enumerate() {
        let mark = at.push(&i.to_string());
        out.push(compile_at(schema, at)?);
        at.0.truncate(mark);
    }
    Ok(out)
}

/// Compiles `source` (a `pattern` or a `patternProperties` key at `at`) or says why not.
fn pattern(source: &str, at: &str) -> Result<Pattern, String> {
    let engine = "the linear-time regex engine used for `pattern` (`regex-lite`)";
    match ecma::compile(source) {
        Ok(regex) => Ok(Pattern {
            source: source.to_owned(),
            regex,
        }),
        Err(PatternError::Syntax) => Err(format!(
            "the pattern `{source}` at `{at}` is not an ECMA-262 regular expression, the dialect JSON Schema patterns are written in; fix its syntax"
        )),
        Err(PatternError::Unsupported(what)) => Err(format!(
            "the pattern `{source}` at `{at}` uses {what}, which {engine} cannot run; rewrite it without, or check the value in the tool"
        )),
        Err(PatternError::Engine(error)) => Err(format!(
            "the pattern `{source}` at `{at}` is too large for {engine} ({error}); simplify it, or check the value in the tool"
        )),
    }
}

impl Pattern {
    pub(crate) fn is_match(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }
}

/// Where a value sits in the arguments, as a JSON pointer, written only for a reported
/// violation.
#[derive(Clone, Copy)]
pub(crate) enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root => Ok(()),
            Path::Key(parent, key) => {
                write!(f, "{parent}/")?;
                for c in key.chars() {
                    match c {
                        '~' => f.write_str("~0")?,
                        '/' => f.write_str("~1")?,
                        c => f.write_char(c)?,
                    }
                }
                Ok(())
            }
            Path::Index(parent, i) => write!(f, "{parent}/{i}"),
        }
    }
}

/// One violation: the JSON pointer of the value (empty for the root) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub(crate) path: String,
    pub(crate) message: String,
}

/// The violations found in a value ([`crate::Validator::validate`]): the first ones written out,
/// all of them counted. (Inside the crate, a probe keeps none and stops at the first.)
pub struct Report {
    keep: usize,
    probe: bool,
    pub(crate) violations: Vec<Violation>,
    pub(crate) total: usize,
    /// A float was checked where only integers are admitted: [`Node::integers`] has work.
    pub(crate) floats_as_integers: bool,
}

impl Report {
    pub(crate) fn keeping(keep: usize) -> Report {
        Report {
            keep,
            probe: false,
            violations: Vec::new(),
            total: 0,
            floats_as_integers: false,
        }
    }

    fn probe() -> Report {
        Report {
            keep: 0,
            probe: true,
            violations: Vec::new(),
            total: 0,
            floats_as_integers: false,
        }
    }

    /// A probe that has found its violation: the rest need not be checked.
    fn stopped(&self) -> bool {
        self.probe && self.total > 0
    }

    fn add(&mut self, path: &Path<'_>, message: impl FnOnce() -> String) {
        self.total += 1;
        if self.violations.len() < self.keep {
            self.violations.push(Violation {
                path: path.to_string(),
                message: message(),
            });
        }
    }
}

impl Node {
    /// Whether `value` satisfies the schema.
    pub(crate) fn is_valid(&self, value: &Value) -> bool {
        let mut probe = Report::probe();
        self.check(value, &Path::Root, &mut probe);
        probe.total == 0
    }

    /// [`Node::is_valid`] for a branch whose integers [`Node::integers`] hands on when it holds:
    /// tells `report` if it saw a float where only integers are admitted.
    fn branch_holds(&self, value: &Value, report: &mut Report) -> bool {
        let mut probe = Report::probe();
        self.check(value, &Path::Root, &mut probe);
        report.floats_as_integers |= probe.floats_as_integers;
        probe.total == 0
    }

    /// Adds every violation of `value` (at `path`) to `report`.
    pub(crate) fn check(&self, value: &Value, path: &Path<'_>, report: &mut Report) {
        match self {
            Node::Any => {}
            Node::Never => report.add(path, || format!("False schema does not allow {value}")),
            Node::Rules(rules) => rules.check(value, path, report),
        }
    }

    /// Removes `"key": null` where `key` is an optional property (models often send them),
    /// recursively along `properties` and `items`.
    pub(crate) fn drop_null_optionals(&self, value: &mut Value) {
        let Node::Rules(rules) = self else {
            return;
        };
        match value {
            Value::Object(members) if !rules.properties.is_empty() => {
                members.retain(|name, member| {
                    !(member.is_null()
                        && rules.properties.iter().any(|(known, _)| known == name)
                        && !rules.required.iter().any(|required| required == name))
                });
                for (name, member) in members.iter_mut() {
                    if let Some((_, node)) =
                        rules.properties.iter().find(|(known, _)| known == name)
                    {
                        node.drop_null_optionals(member);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(node) = &rules.items {
                    for item in items {
                        node.drop_null_optionals(item);
                    }
                }
            }
            _ => {}
        }
    }

    /// Hands on integer-valued floats (`1.0`, `-0.0`) as integers where the schema admits only
    /// integers, so a Rust integer type deserializes them. `value` must satisfy the schema.
    pub(crate) fn integers(&self, value: &mut Value) {
        if let Node::Rules(rules) = self {
            rules.integers(value);
        }
    }
}

impl Rules {
    fn check(&self, value: &Value, path: &Path<'_>, report: &mut Report) {
        self.check_value(value, path, report);
        if report.stopped() {
            return;
        }
        match value {
            Value::Number(n) => self.check_number(value, Num::of(n), path, report),
            Value::String(s) => self.check_string(value, s, path, report),
            Value::Array(items) => self.check_array(value, items, path, report),
            Value::Object(members) => self.check_object(value, members, path, report),
            Value::Null | Value::Bool(_) => {}
        }
        if report.stopped() {
            return;
        }
        self.check_applicators(value, path, report);
    }

    /// `type`, `const`, `enum`.
    fn check_value(&self, value: &Value, path: &Path<'_>, report: &mut Report) {
        if self.integers_only && value.as_number().is_some_and(Number::is_f64) {
            report.floats_as_integers = true;
        }
        if let Some(types) = self.types.filter(|t| !t.admits(value)) {
            report.add(path, || {
                let names: Vec<String> = types.names().map(|name| format!("\"{name}\"")).collect();
                if names.len() == 1 {
                    format!("{value} is not of type {}", names[0])
                } else {
                    format!("{value} is not of types {}", names.join(", "))
                }
            });
        }
        if let Some(expected) = self.constant.as_ref().filter(|c| !num::json_eq(c, value)) {
            report.add(path, || format!("{expected} was expected"));
        }
        if let Some(options) = &self.enumeration {
            if !options.iter().any(|option| num::json_eq(option, value)) {
                report.add(path, || {
                    format!("{value} is not one of {}", one_of_list(options))
                });
            }
        }
    }

    fn check_number(&self, value: &Value, n: Num, path: &Path<'_>, report: &mut Report) {
        use std::cmp::Ordering::{Equal, Greater, Less};
        let bounds = [
            (&self.minimum, [Less, Less], "is less than the minimum of"),
            (
                &self.maximum,
                [Greater, Greater],
                "is greater than the maximum of",
            ),
            (
                &self.exclusive_minimum,
                [Less, Equal],
                "is less than or equal to the minimum of",
            ),
            (
                &self.exclusive_maximum,
                [Greater, Equal],
                "is greater than or equal to the maximum of",
            ),
        ];
        for (bound, failing, words) in bounds {
            if let Some(bound) = bound {
                if failing.contains(&n.cmp(bound.num)) {
                    report.add(path, || format!("{value} {words} {}", bound.limit));
                }
            }
        }
        if let Some(multiple) = &self.multiple_of {
            if !num::is_multiple(n, multiple.decimal) {
                report.add(path, || {
                    format!("{value} is not a multiple of {}", multiple.display)
                });
            }
        }
    }

    fn check_string(&self, value: &Value, s: &str, path: &Path<'_>, report: &mut Report) {
        if self.min_length.is_some() || self.max_length.is_some() {
            // Code points, as JSON Schema counts length.
            let length = s.chars().count() as u64;
            if let Some(min) = self.min_length.filter(|min| length < *min) {
                report.add(path, || {
                    format!("{value} is shorter than {min} character{}", plural(min))
                });
            }
            if let Some(max) = self.max_length.filter(|max| length > *max) {
                report.add(path, || {
                    format!("{value} is longer than {max} character{}", plural(max))
                });
            }
        }
        if let Some(pattern) = self.pattern.as_ref().filter(|p| !p.is_match(s)) {
            report.add(path, || {
                format!("{value} does not match \"{}\"", pattern.source)
            });
        }
        if let Some(format) = self.format.filter(|f| !f.check(s)) {
            report.add(path, || format!("{value} is not a \"{}\"", format.name()));
        }
    }

    fn check_array(&self, value: &Value, items: &[Value], path: &Path<'_>, report: &mut Report) {
        let length = items.len() as u64;
        if let Some(min) = self.min_items.filter(|min| length < *min) {
            report.add(path, || {
                format!("{value} has less than {min} item{}", plural(min))
            });
        }
        if let Some(max) = self.max_items.filter(|max| length > *max) {
            report.add(path, || {
                format!("{value} has more than {max} item{}", plural(max))
            });
        }
        if self.unique_items && has_duplicates(items) {
            report.add(path, || format!("{value} has non-unique elements"));
        }
        for (i, item) in items.iter().enumerate() {
            let node = self.prefix_items.get(i).or(self.items.as_ref());
            if let Some(node) = node {
                node.check(item, &Path::Index(path, i), report);
                if report.stopped() {
                    return;
                }
            }
        }
        if let Some(contains) = &self.contains {
            let matching = items
                .iter()
                .filter(|item| contains.node.is_valid(item))
                .count() as u64;
            if matching < contains.min {
                report.add(path, || {
                    if matching == 0 && contains.min == 1 {
                        format!("None of {value} are valid under the given schema")
                    } else {
                        let min = contains.min;
                        format!(
                            "{value} has less than {min} item{} valid under the given schema",
                            plural(min)
                        )
                    }
                });
            }
            if let Some(max) = contains.max.filter(|max| matching > *max) {
                report.add(path, || {
                    format!(
                        "{value} has more than {max} item{} valid under the given schema",
                        plural(max)
                    )
                });
            }
        }
    }

    fn check_object(
        &self,
        value: &Value,
        members: &Map<String, Value>,
        path: &Path<'_>,
        report: &mut Report,
    ) {
        let count = members.len() as u64;
        if let Some(min) = self.min_properties.filter(|min| count < *min) {
            report.add(path, || {
                format!("{value} has less than {min} propert{}", plural_y(min))
            });
        }
        if let Some(max) = self.max_properties.filter(|max| count > *max) {
            report.add(path, || {
                format!("{value} has more than {max} propert{}", plural_y(max))
            });
        }
        for name in self.required.iter().filter(|n| !has_member(members, n)) {
            report.add(path, || {
                format!("{} is a required property", Value::from(name.as_str()))
            });
        }
        for (trigger, needed) in &self.dependent_required {
            if has_member(members, trigger) {
                for name in needed.iter().filter(|n| !has_member(members, n)) {
                    report.add(path, || {
                        format!("{} is a required property", Value::from(name.as_str()))
                    });
                }
            }
        }
        if report.stopped() {
            return;
        }
        let mut unexpected: Vec<&str> = Vec::new();
        for (name, member) in members {
            let here = Path::Key(path, name);
            let mut matched = false;
            if let Some((_, node)) = self.properties.iter().find(|(known, _)| known == name) {
                node.check(member, &here, report);
                matched = true;
            }
            for (pattern, node) in &self.pattern_properties {
                if pattern.is_match(name) {
                    node.check(member, &here, report);
                    matched = true;
                }
            }
            if !matched {
                match &self.additional_properties {
                    Some(Node::Never) => unexpected.push(name),
                    Some(node) => node.check(member, &here, report),
                    None => {}
                }
            }
            if report.stopped() {
                return;
            }
        }
        if !unexpected.is_empty() {
            report.add(path, || {
                let quoted: Vec<String> = unexpected.iter().map(|n| format!("'{n}'")).collect();
                let verb = if unexpected.len() == 1 { "was" } else { "were" };
                format!(
                    "Additional properties are not allowed ({} {verb} unexpected)",
                    quoted.join(", ")
                )
            });
        }
        if let Some(names) = &self.property_names {
            for name in members.keys() {
                names.check(&Value::String(name.clone()), path, report);
                if report.stopped() {
                    return;
                }
            }
        }
        for (trigger, node) in &self.dependent_schemas {
            if members.contains_key(trigger) {
                node.check(value, path, report);
            }
        }
    }

    /// `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`.
    fn check_applicators(&self, value: &Value, path: &Path<'_>, report: &mut Report) {
        for node in &self.all_of {
            node.check(value, path, report);
            if report.stopped() {
                return;
            }
        }
        if !self.any_of.is_empty()
            && !self
                .any_of
                .iter()
                .any(|node| node.branch_holds(value, report))
        {
            report.add(path, || {
                format!(
                    "{value} is not valid under any of the schemas listed in the 'anyOf' keyword"
                )
            });
        }
        if !self.one_of.is_empty() {
            let holding = self
                .one_of
                .iter()
                .filter(|node| node.branch_holds(value, report))
                .take(2)
                .count();
            match holding {
                1 => {}
                0 => report.add(path, || {
                    format!("{value} is not valid under any of the schemas listed in the 'oneOf' keyword")
                }),
                _ => report.add(path, || {
                    format!("{value} is valid under more than one of the schemas listed in the 'oneOf' keyword")
                }),
            }
        }
        if let Some((node, schema)) = &self.not {
            if node.is_valid(value) {
                report.add(path, || format!("{schema} is not allowed for {value}"));
            }
        }
        if let Some(condition) = &self.condition {
            let branch = if condition.test.branch_holds(value, report) {
                &condition.then
            } else {
                &condition.otherwise
            };
            if let Some(node) = branch {
                node.check(value, path, report);
            }
        }
    }

    fn integers(&self, value: &mut Value) {
        if let Value::Number(n) = value {
            if self.integers_only {
                if let Some(integer) = as_integer(n) {
                    *value = integer;
                }
            }
        }
        match value {
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    if let Some(node) = self.prefix_items.get(i).or(self.items.as_ref()) {
                        node.integers(item);
                    }
                }
            }
            Value::Object(members) => {
                for (name, member) in members.iter_mut() {
                    let mut matched = false;
                    if let Some((_, node)) = self.properties.iter().find(|(known, _)| known == name)
                    {
                        node.integers(member);
                        matched = true;
                    }
                    for (pattern, node) in &self.pattern_properties {
                        if pattern.is_match(name) {
                            node.integers(member);
                            matched = true;
                        }
                    }
                    if let (false, Some(node)) = (matched, &self.additional_properties) {
                        node.integers(member);
                    }
                }
            }
            _ => {}
        }
        for node in &self.all_of {
            node.integers(value);
        }
        for node in self.any_of.iter().chain(&self.one_of) {
            if node.is_valid(value) {
                node.integers(value);
            }
        }
        if let Value::Object(members) = &*value {
            let triggered: Vec<&Node> = self
                .dependent_schemas
                .iter()
                .filter(|(trigger, _)| members.contains_key(trigger))
                .map(|(_, node)| node)
                .collect();
            for node in triggered {
                node.integers(value);
            }
        }
        if let Some(condition) = &self.condition {
            let branch = if condition.test.is_valid(value) {
                &condition.then
            } else {
                &condition.otherwise
            };
            if let Some(node) = branch {
                node.integers(value);
            }
        }
    }
}

/// Whether `members` has `name`: a scan for the few members arguments have, cheaper than
/// hashing the name.
fn has_member(members: &Map<String, Value>, name: &str) -> bool {
    if members.len() <= 8 {
        members.keys().any(|key| key == name)
    } else {
        members.contains_key(name)
    }
}

/// An integer-valued float as the integer it is (`-0.0` as `0`), if one fits in `u64` or `i64`.
fn as_integer(n: &Number) -> Option<Value> {
    let f = n.as_f64().filter(|f| n.is_f64() && f.fract() == 0.0)?;
    if f == 0.0 {
        Some(Value::from(0u64))
    } else if (0.0..18_446_744_073_709_551_616.0).contains(&f) {
        Some(Value::from(f as u64))
    } else if (-9_223_372_036_854_775_808.0..0.0).contains(&f) {
        Some(Value::from(f as i64))
    } else {
        None
    }
}

/// Whether two items are equal as JSON Schema compares them. Long arrays go through a set of
/// canonical spellings, so a caller cannot make the check quadratic.
fn has_duplicates(items: &[Value]) -> bool {
    if items.len() <= 16 {
        return items
            .iter()
            .enumerate()
            .any(|(i, a)| items[i + 1..].iter().any(|b| num::json_eq(a, b)));
    }
    let mut seen = std::collections::HashSet::with_capacity(items.len());
    items.iter().any(|item| {
        let mut key = String::new();
        num::canonical(item, &mut key);
        !seen.insert(key)
    })
}

/// `"a", "b" or "c"`, or the first two and how many others.
fn one_of_list(options: &[Value]) -> String {
    let shown: Vec<String> = options.iter().map(Value::to_string).collect();
    match shown.len() {
        0 => String::new(),
        1 => shown[0].clone(),
        2 | 3 => format!(
            "{} or {}",
            shown[..shown.len() - 1].join(", "),
            shown[shown.len() - 1]
        ),
        n => format!("{}, {} or {} other candidates", shown[0], shown[1], n - 2),
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn plural_y(n: u64) -> &'static str {
    if n == 1 { "y" } else { "ies" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn violations(schema: Value, value: Value) -> Vec<String> {
        let node = compile(&schema).unwrap();
        let mut report = Report::keeping(usize::MAX);
        node.check(&value, &Path::Root, &mut report);
        assert_eq!(report.total == 0, node.is_valid(&value));
        report
            .violations
            .into_iter()
            .map(|v| format!("{}: {}", v.path, v.message))
            .collect()
    }

    #[test]
    fn messages_say_what_is_wrong_where() {
        assert_eq!(
            violations(
                json!({"type": "object", "properties": {"a": {"type": "string", "maxLength": 1}}, "required": ["b"], "additionalProperties": false}),
                json!({"a": "xy", "c": 1, "d": 2})
            ),
            [
                ": \"b\" is a required property",
                "/a: \"xy\" is longer than 1 character",
                ": Additional properties are not allowed ('c', 'd' were unexpected)",
            ]
        );
        assert_eq!(
            violations(json!({"type": ["integer", "string"]}), json!(1.5)),
            [": 1.5 is not of types \"integer\", \"string\""]
        );
        assert_eq!(
            violations(json!({"enum": [1, 2, 3, 4]}), json!(5)),
            [": 5 is not one of 1, 2 or 2 other candidates"]
        );
        assert_eq!(
            violations(json!({"enum": ["a", "b", "c"]}), json!("d")),
            [": \"d\" is not one of \"a\", \"b\" or \"c\""]
        );
        assert_eq!(
            violations(json!({"not": {"enum": [0]}}), json!(0)),
            [": {\"enum\":[0]} is not allowed for 0"]
        );
        assert_eq!(
            violations(json!({"exclusiveMaximum": 1.5, "multipleOf": 2}), json!(3)),
            [
                ": 3 is greater than or equal to the maximum of 1.5",
                ": 3 is not a multiple of 2"
            ]
        );
        assert_eq!(
            violations(
                json!({"prefixItems": [{"type": "string"}], "items": false}),
                json!(["a", 1])
            ),
            ["/1: False schema does not allow 1"]
        );
        assert_eq!(
            violations(
                json!({"type": "object", "properties": {"a/b~c": {"type": "string"}}}),
                json!({"a/b~c": 1})
            ),
            ["/a~1b~0c: 1 is not of type \"string\""]
        );
    }

    #[test]
    fn unique_items_compares_as_json_schema_does_at_any_length() {
        let schema = json!({"uniqueItems": true});
        for length in [3, 40] {
            let mut items: Vec<Value> = (0..length).map(|i| json!({"n": i, "tags": [i]})).collect();
            assert!(violations(schema.clone(), Value::Array(items.clone())).is_empty());
            items.push(json!({"tags": [2.0], "n": 2.0}));
            assert_eq!(
                violations(schema.clone(), Value::Array(items)).len(),
                1,
                "{length}"
            );
        }
    }

    #[test]
    fn composition_and_conditions() {
        let one_of = json!({"oneOf": [{"type": "integer"}, {"type": "number"}]});
        assert_eq!(
            violations(one_of.clone(), json!(1)),
            [": 1 is valid under more than one of the schemas listed in the 'oneOf' keyword"]
        );
        assert!(violations(one_of, json!(1.5)).is_empty());
        let conditional =
            json!({"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"minimum": 3}});
        assert!(violations(conditional.clone(), json!("ab")).is_empty());
        assert_eq!(violations(conditional.clone(), json!("a")).len(), 1);
        assert_eq!(violations(conditional, json!(1)).len(), 1);
        assert_eq!(
            violations(
                json!({"contains": {"type": "integer"}, "maxContains": 1}),
                json!([1, 2, "x"])
            ),
            [": [1,2,\"x\"] has more than 1 item valid under the given schema"]
        );
        assert_eq!(
            violations(json!({"dependentRequired": {"a": ["b"]}}), json!({"a": 1})),
            [": \"b\" is a required property"]
        );
    }

    #[test]
    fn what_is_not_checked_does_not_compile() {
        let error = |schema: Value| compile(&schema).err().unwrap();
        let refd = error(json!({"properties": {"a": {"$ref": "#/$defs/a"}}}));
        assert!(refd.contains("`$ref` at `/properties/a/$ref`"), "{refd}");
        let unknown = error(json!({"properties": {"a": {"type": "string", "nullable": true}}}));
        assert!(
            unknown.contains("`nullable` at `/properties/a/nullable`"),
            "{unknown}"
        );
        let unevaluated = error(json!({"oneOf": [true], "unevaluatedProperties": false}));
        assert!(
            unevaluated.contains("`unevaluatedProperties` at `/unevaluatedProperties`"),
            "{unevaluated}"
        );
        let format = error(json!({"items": {"format": "phone"}}));
        assert!(
            format.contains("format `phone` at `/items/format`"),
            "{format}"
        );
        let tuple = error(json!({"items": [{"type": "string"}]}));
        assert!(tuple.contains("prefixItems"), "{tuple}");
        let negative = error(json!({"minLength": -1}));
        assert!(
            negative.contains("`minLength` at `/minLength` must be a non-negative integer"),
            "{negative}"
        );
        assert!(
            compile(&json!({"title": "t", "x-order": 1, "examples": [1], "minLength": 2.0}))
                .is_ok()
        );
    }

    #[test]
    fn integer_valued_floats_become_integers_where_only_integers_are_admitted() {
        let node = compile(&json!({
            "type": "object",
            "properties": {
                "id": {"type": "integer"},
                "ratio": {"type": "number"},
                "ids": {"type": "array", "items": {"type": "integer"}},
                "either": {"anyOf": [{"type": "integer", "minimum": 5}, {"type": "string"}]}
            }
        }))
        .unwrap();
        let mut value = json!({"id": -0.0, "ratio": 2.0, "ids": [1.0, 2, 3e3], "either": 5.0});
        assert!(node.is_valid(&value));
        node.integers(&mut value);
        assert_eq!(
            value,
            json!({"id": 0, "ratio": 2.0, "ids": [1, 2, 3000], "either": 5})
        );
        assert!(value["id"].is_u64() && value["ids"][2].is_u64() && value["ratio"].is_f64());
        let mut negative = json!({"id": -3.0});
        node.integers(&mut negative);
        assert!(negative["id"].is_i64());
        let mut huge = json!({"id": 1e300});
        node.integers(&mut huge);
        assert!(
            huge["id"].is_f64(),
            "no integer type holds it; the tool's deserializer decides"
        );
    }
}
