//! What each LLM API accepts in a tool definition, as data. Each rule set names the published
//! page it was taken from; when an API changes its rules, this file is the one to edit.

/// The LLM tool-calling APIs (and the strict modes) a tool schema is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Api {
    /// OpenAI function calling without `strict`.
    OpenAi,
    /// OpenAI function calling with `strict: true` (Structured Outputs).
    OpenAiStrict,
    /// Anthropic tool use: `input_schema` without `strict`.
    Anthropic,
    /// Anthropic strict tool use (`strict: true`).
    AnthropicStrict,
    /// Google Gemini `FunctionDeclaration.parameters` (an OpenAPI 3.0 subset).
    Gemini,
    /// The keywords every API above accepts outside its strict mode.
    Portable,
}

impl Api {
    /// Every API, in report order.
    pub const ALL: [Api; 6] = [
        Api::OpenAi,
        Api::OpenAiStrict,
        Api::Anthropic,
        Api::AnthropicStrict,
        Api::Gemini,
        Api::Portable,
    ];

    /// The rules of this API.
    ///
    /// ```
    /// use cetp_schema_report::Api;
    /// assert!(Api::OpenAiStrict.rules().all_required);
    /// assert_eq!(Api::Gemini.rules().label, "Gemini");
    /// ```
    pub fn rules(self) -> &'static RuleSet {
        match self {
            Api::OpenAi => &OPENAI,
            Api::OpenAiStrict => &OPENAI_STRICT,
            Api::Anthropic => &ANTHROPIC,
            Api::AnthropicStrict => &ANTHROPIC_STRICT,
            Api::Gemini => &GEMINI,
            Api::Portable => &PORTABLE,
        }
    }
}

impl std::fmt::Display for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.rules().label)
    }
}

/// A name rule: the characters allowed first and after, and the longest length, e.g.
/// `^[a-zA-Z0-9_-]{1,64}$` is `NameRule { first: "a-zA-Z0-9_-", rest: "a-zA-Z0-9_-", max: 64 }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameRule {
    /// Allowed first characters, as the inside of a regex character class.
    pub first: &'static str,
    /// Allowed further characters, the same way.
    pub rest: &'static str,
    /// The longest allowed name, in characters.
    pub max: usize,
}

impl NameRule {
    /// Whether `name` follows the rule.
    ///
    /// ```
    /// use cetp_schema_report::Api;
    /// let rule = Api::Gemini.rules().property_name;
    /// assert!(rule.accepts("_min_score"));
    /// assert!(!rule.accepts("min-score"));
    /// ```
    pub fn accepts(&self, name: &str) -> bool {
        let mut chars = name.chars();
        let Some(first) = chars.next() else {
            return false;
        };
        name.chars().count() <= self.max
            && in_class(self.first, first)
            && chars.all(|c| in_class(self.rest, c))
    }

    /// The rule as a regular expression.
    pub fn pattern(&self) -> String {
        if self.first == self.rest {
            format!("^[{}]{{1,{}}}$", self.first, self.max)
        } else {
            format!("^[{}][{}]{{0,{}}}$", self.first, self.rest, self.max - 1)
        }
    }
}

/// Whether `c` is in the character class `class` (ranges `a-z` and single characters; a `-`
/// at the end is literal).
fn in_class(class: &str, c: char) -> bool {
    let chars: Vec<char> = class.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if i + 2 < chars.len() && chars[i + 1] == '-' {
            if (chars[i]..=chars[i + 2]).contains(&c) {
                return true;
            }
            i += 3;
        } else {
            if chars[i] == c {
                return true;
            }
            i += 1;
        }
    }
    false
}

/// One API's rules for a tool definition. Every field is a published rule; `None` or `false`
/// means the API sets no such rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSet {
    /// The column title in reports.
    pub label: &'static str,
    /// Where the rules are published.
    pub source: &'static str,
    /// The tool (function) name.
    pub tool_name: NameRule,
    /// Property names at every level.
    pub property_name: NameRule,
    /// When set, the only schema keywords accepted; any other is reported.
    pub allowed_keywords: Option<&'static [&'static str]>,
    /// Keywords rejected outright.
    pub rejected_keywords: &'static [&'static str],
    /// When set, the only `format` values accepted.
    pub allowed_formats: Option<&'static [&'static str]>,
    /// Every object must say `additionalProperties: false`.
    pub closed_objects: bool,
    /// Every property of every object must be listed in `required`.
    pub all_required: bool,
    /// `type` must be one type name, never an array of them.
    pub single_type: bool,
    /// The root must not be (or hold) an `anyOf`, `oneOf` or `allOf`.
    pub plain_root: bool,
    /// An `array` must say what its `items` are.
    pub items_required: bool,
    /// `enum` values must be strings.
    pub string_enums: bool,
    /// The largest `minItems` accepted.
    pub max_min_items: Option<u64>,
    /// The deepest nesting of objects, the root counting as level 1.
    pub max_depth: Option<usize>,
    /// The most properties in one schema, all levels together.
    pub max_properties: Option<usize>,
    /// The most `enum` values in one schema, all levels together.
    pub max_enum_values: Option<usize>,
}

/// `^[a-zA-Z0-9_-]{1,64}$`: OpenAI's and Anthropic's function names.
const OPENAI_NAME: NameRule = NameRule {
    first: "a-zA-Z0-9_-",
    rest: "a-zA-Z0-9_-",
    max: 64,
};

/// Property names nobody restricts beyond being text; Gemini and the portable core do.
const ANY_NAME: NameRule = NameRule {
    first: "\u{0}-\u{10FFFF}",
    rest: "\u{0}-\u{10FFFF}",
    max: usize::MAX,
};

/// `^[A-Za-z_][A-Za-z0-9_]{0,63}$`: Gemini's (Vertex AI's) parameter names.
const GEMINI_PROPERTY_NAME: NameRule = NameRule {
    first: "A-Za-z_",
    rest: "A-Za-z0-9_",
    max: 64,
};

const NO_KEYWORDS: &[&str] = &[];

// OpenAI function calling, non-strict.
// Source: https://platform.openai.com/docs/guides/function-calling (function `name`:
// a-z, A-Z, 0-9, underscores and dashes, at most 64; `parameters` is a JSON Schema object).
// The API answers `array schema missing items` for an array without `items`.
static OPENAI: RuleSet = RuleSet {
    label: "OpenAI",
    source: "https://platform.openai.com/docs/guides/function-calling",
    tool_name: OPENAI_NAME,
    property_name: ANY_NAME,
    allowed_keywords: None,
    rejected_keywords: NO_KEYWORDS,
    allowed_formats: None,
    closed_objects: false,
    all_required: false,
    single_type: false,
    plain_root: false,
    items_required: true,
    string_enums: false,
    max_min_items: None,
    max_depth: None,
    max_properties: None,
    max_enum_values: None,
};

// OpenAI Structured Outputs (`strict: true`), "Supported schemas".
// Source: https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
// Supported: string/number/boolean/integer/object/array, enum, anyOf, $ref/$defs; strings:
// `pattern`, `format` (date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid);
// numbers: multipleOf, maximum, exclusiveMaximum, minimum, exclusiveMinimum; arrays: minItems,
// maxItems. Every field in `required` (optional ones typed with null), `additionalProperties:
// false` on every object, root an object (not anyOf). At most 5000 properties, 10 levels of
// nesting and 1000 enum values. allOf, not, dependentRequired, dependentSchemas and if/then/else
// are not supported; neither are minLength/maxLength (not in the supported list).
static OPENAI_STRICT: RuleSet = RuleSet {
    label: "OpenAI strict",
    source: "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas",
    tool_name: OPENAI_NAME,
    property_name: ANY_NAME,
    allowed_keywords: Some(&[
        "type",
        "description",
        "title",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "$ref",
        "$defs",
        "pattern",
        "format",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "minItems",
        "maxItems",
    ]),
    rejected_keywords: &[
        "allOf",
        "not",
        "dependentRequired",
        "dependentSchemas",
        "if",
        "then",
        "else",
    ],
    allowed_formats: Some(&[
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uuid",
    ]),
    closed_objects: true,
    all_required: true,
    single_type: false,
    plain_root: true,
    items_required: true,
    string_enums: false,
    max_min_items: None,
    max_depth: Some(10),
    max_properties: Some(5000),
    max_enum_values: Some(1000),
};

// Anthropic tool use, non-strict: `input_schema` is a JSON Schema object.
// Source: https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use
// (tool `name` must match ^[a-zA-Z0-9_-]{1,64}$). The API refuses an `input_schema` with
// oneOf, allOf or anyOf at the top level.
static ANTHROPIC: RuleSet = RuleSet {
    label: "Anthropic",
    source: "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use",
    tool_name: OPENAI_NAME,
    property_name: ANY_NAME,
    allowed_keywords: None,
    rejected_keywords: NO_KEYWORDS,
    allowed_formats: None,
    closed_objects: false,
    all_required: false,
    single_type: false,
    plain_root: true,
    items_required: false,
    string_enums: false,
    max_min_items: None,
    max_depth: None,
    max_properties: None,
    max_enum_values: None,
};

// Anthropic strict tool use, "JSON Schema limitations".
// Source: https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations
// Not supported: recursive schemas, numerical constraints (minimum, maximum, multipleOf),
// string length constraints (minLength, maxLength), array constraints beyond minItems 0 or 1,
// `additionalProperties` other than false (and it must be false on every object). Formats:
// date-time, time, date, duration, email, hostname, uri, ipv4, ipv6, uuid. Enums of primitives.
// Anthropic's SDKs move the dropped constraints into the description.
static ANTHROPIC_STRICT: RuleSet = RuleSet {
    label: "Anthropic strict",
    source: "https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations",
    tool_name: OPENAI_NAME,
    property_name: ANY_NAME,
    allowed_keywords: None,
    rejected_keywords: &[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "patternProperties",
    ],
    allowed_formats: Some(&[
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "uri",
        "ipv4",
        "ipv6",
        "uuid",
    ]),
    closed_objects: true,
    all_required: false,
    single_type: false,
    plain_root: true,
    items_required: false,
    string_enums: false,
    max_min_items: Some(1),
    max_depth: None,
    max_properties: None,
    max_enum_values: None,
};

// Gemini API `FunctionDeclaration.parameters`, a `Schema` ("a select subset of an OpenAPI 3.0
// schema object").
// Sources: https://ai.google.dev/api/caching#Schema (the fields: type, format, title,
// description, nullable, enum, maxItems, minItems, properties, required, minProperties,
// maxProperties, minLength, maxLength, pattern, example, anyOf, propertyOrdering, default,
// items, minimum, maximum; `type` is one value; `enum` is a list of strings; string formats
// `enum` and `date-time`, integer `int32`/`int64`, number `float`/`double`) and
// https://cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/FunctionDeclaration (the
// function name starts with a letter or `_` and has a-z, A-Z, 0-9, `_`, `.`, `:`, `-`, at most
// 64; parameter names start with a letter or `_` and have a-z, A-Z, 0-9, `_`, at most 64).
// `additionalProperties`, `$ref`/`$defs`, `oneOf`, `allOf`, `const` and type arrays are not
// part of it.
static GEMINI: RuleSet = RuleSet {
    label: "Gemini",
    source: "https://ai.google.dev/api/caching#Schema",
    tool_name: NameRule {
        first: "a-zA-Z_",
        rest: "a-zA-Z0-9_.:-",
        max: 64,
    },
    property_name: GEMINI_PROPERTY_NAME,
    allowed_keywords: Some(&[
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "default",
        "items",
        "minimum",
        "maximum",
    ]),
    rejected_keywords: NO_KEYWORDS,
    allowed_formats: Some(&["enum", "date-time", "int32", "int64", "float", "double"]),
    closed_objects: false,
    all_required: false,
    single_type: true,
    plain_root: false,
    items_required: false,
    string_enums: true,
    max_min_items: None,
    max_depth: None,
    max_properties: None,
    max_enum_values: None,
};

// The portable core: the keywords in every rule set above, outside the strict modes (whose
// requirements contradict Gemini's: they demand `additionalProperties: false`, which Gemini's
// subset does not have). Names follow the narrowest rules (Gemini's property names, a tool name
// every API accepts); the only format all of them know is `date-time`.
static PORTABLE: RuleSet = RuleSet {
    label: "portable core",
    source: "the intersection of the rule sets above",
    tool_name: NameRule {
        first: "a-zA-Z_",
        rest: "a-zA-Z0-9_",
        max: 64,
    },
    property_name: GEMINI_PROPERTY_NAME,
    allowed_keywords: Some(&[
        "type",
        "description",
        "enum",
        "format",
        "properties",
        "required",
        "items",
    ]),
    rejected_keywords: NO_KEYWORDS,
    allowed_formats: Some(&["date-time"]),
    closed_objects: false,
    all_required: false,
    single_type: true,
    plain_root: true,
    items_required: true,
    string_enums: true,
    max_min_items: None,
    max_depth: None,
    max_properties: None,
    max_enum_values: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_rules() {
        assert!(OPENAI_NAME.accepts("search-notes_2"));
        assert!(!OPENAI_NAME.accepts("workflow/save"));
        assert!(!OPENAI_NAME.accepts(""));
        assert!(!OPENAI_NAME.accepts(&"a".repeat(65)));
        assert!(GEMINI.tool_name.accepts("notes.search:v2"));
        assert!(!GEMINI.tool_name.accepts("2fa"));
        assert!(!GEMINI_PROPERTY_NAME.accepts("min-score"));
        assert!(ANY_NAME.accepts("any thing"));
        assert_eq!(
            GEMINI_PROPERTY_NAME.pattern(),
            "^[A-Za-z_][A-Za-z0-9_]{0,63}$"
        );
        assert_eq!(OPENAI_NAME.pattern(), "^[a-zA-Z0-9_-]{1,64}$");
    }
}
