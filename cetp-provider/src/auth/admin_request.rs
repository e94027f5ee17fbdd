//! The requests of the admin interface ([`AdminRequest`], with the screen's language:
//! [`LocalizedRequest`]) and their reader. The JSON object is read once into its fields, then
//! each operation takes its own: one small reader for every operation, instead of serde's
//! generated code for an internally tagged enum behind a flattened field, which buffers the
//! whole request and was compiled once per type involved (about 30 KiB of the library).

use serde::Serialize;
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

use super::store::access_level;
use crate::context::AccessLevel;
use crate::localized::MAX_LOCALE_LEN;
use crate::wire;

/// One request of the JSON admin interface ([`Authorizer::handle_admin_json`]), tagged by `op`.
/// Unknown fields are rejected, so a misspelt field never widens an approval.
///
/// ```json
/// {"op": "state"}
/// {"op": "state", "caller_uid": 10123}
/// {"op": "approve", "id": "18f…-3", "scopes": ["notes"], "access": "limited", "duration_secs": 604800}
/// {"op": "approve", "id": "18f…-3", "scopes": ["notes"], "caller_uid": 10123}
/// {"op": "deny", "id": "18f…-4"}
/// {"op": "revoke", "package": "com.example.agent", "certificate_sha256": "5f2a…"}
/// {"op": "clear_denial", "package": "com.example.agent"}
/// ```
///
/// Every request may also carry `"locale"`, the language of the screen as a BCP 47 tag (`"fr"`,
/// `"pt-BR"`): the reply's state then describes the scopes in that language, where the app
/// gave a translation ([`Localized`](crate::Localized)); see [`LocalizedRequest`].
///
/// `approve` must name its `scopes` (those the screen showed; see
/// [`Approval`](super::admin::Approval)); `access` is `"full"` (default) or `"limited"`;
/// `duration_secs` absent or `null` never expires. `caller_uid` (on `state`, `approve` and
/// `deny`) is the UID of the app that opened the screen: the reply lists only that app's
/// pending requests, and `approve` / `deny` of another app's request fails with
/// `unknown_request`. `revoke` and `clear_denial` without `certificate_sha256` act on every
/// entry for the package. An optional field may be `null` (as if absent), except `access`;
/// a field given twice makes the request malformed. `op` may also be the operation's index in
/// the list above (`0` for `state` to `4` for `clear_denial`), as it always could.
///
/// [`Authorizer::handle_admin_json`]: super::Authorizer::handle_admin_json
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
#[non_exhaustive]
pub enum AdminRequest {
    /// Read everything the screen shows.
    State {
        /// Only the pending requests from this UID (the app that opened the screen).
        caller_uid: Option<u32>,
    },
    /// Approve a pending request.
    Approve {
        /// The [`PendingRequest::id`](super::PendingRequest::id).
        id: String,
        /// The scopes to allow: those the screen showed, all of them requested.
        scopes: Vec<String>,
        /// The access level.
        #[serde(with = "access_level")]
        access: AccessLevel,
        /// Lifetime in seconds; `None` = no expiry.
        duration_secs: Option<u64>,
        /// The request must come from this UID (the app that opened the screen).
        caller_uid: Option<u32>,
    },
    /// Deny a pending request.
    Deny {
        /// The [`PendingRequest::id`](super::PendingRequest::id).
        id: String,
        /// The request must come from this UID (the app that opened the screen).
        caller_uid: Option<u32>,
    },
    /// Remove grants of a package.
    Revoke {
        /// The package name.
        package: String,
        /// Only the grant pinned to this certificate digest; `None` = all of the package's.
        certificate_sha256: Option<String>,
    },
    /// Remove denials of a package.
    ClearDenial {
        /// The package name.
        package: String,
        /// Only the denial pinned to this certificate digest; `None` = all of the package's.
        certificate_sha256: Option<String>,
    },
}

/// An [`AdminRequest`] as the screens send it: with the language of the screen, a BCP 47 tag
/// (`"locale"`, any operation), in which the reply's state describes the scopes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct LocalizedRequest {
    /// The screen's language; `None`: the default texts. A tag longer than 128 bytes makes
    /// the request a `bad_request`, before anything reads it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    /// The operation.
    #[serde(flatten)]
    pub request: AdminRequest,
}

impl LocalizedRequest {
    /// `request`, its reply in the language `locale`.
    #[cfg(test)]
    pub fn new(request: AdminRequest, locale: Option<&str>) -> Self {
        LocalizedRequest {
            locale: locale.map(str::to_owned),
            request,
        }
    }
}

/// The operations in the order of their index, each with the fields it takes besides `op`
/// and `locale`.
const OPERATIONS: [(&str, &[&str]); 5] = [
    (wire::ADMIN_OP_STATE, &[wire::ADMIN_KEY_CALLER_UID]),
    (
        wire::ADMIN_OP_APPROVE,
        &[
            wire::ADMIN_KEY_ID,
            wire::ADMIN_KEY_SCOPES,
            wire::ADMIN_KEY_ACCESS,
            wire::ADMIN_KEY_DURATION_SECS,
            wire::ADMIN_KEY_CALLER_UID,
        ],
    ),
    (
        wire::ADMIN_OP_DENY,
        &[wire::ADMIN_KEY_ID, wire::ADMIN_KEY_CALLER_UID],
    ),
    (
        wire::ADMIN_OP_REVOKE,
        &[wire::ADMIN_KEY_PACKAGE, wire::ADMIN_KEY_CERTIFICATE_SHA256],
    ),
    (
        wire::ADMIN_OP_CLEAR_DENIAL,
        &[wire::ADMIN_KEY_PACKAGE, wire::ADMIN_KEY_CERTIFICATE_SHA256],
    ),
];

impl<'de> Deserialize<'de> for LocalizedRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let fields = deserializer.deserialize_map(FieldsVisitor)?;
        read(fields).map_err(de::Error::custom)
    }
}

/// A JSON object's fields in order, each key once.
struct Fields(Vec<(String, Value)>);

struct FieldsVisitor;

impl<'de> Visitor<'de> for FieldsVisitor {
    type Value = Fields;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an admin request (a JSON object with `op`)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields, A::Error> {
        let mut fields: Vec<(String, Value)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if fields.iter().any(|(k, _)| *k == key) {
                return Err(de::Error::custom(format_args!("duplicate field `{key}`")));
            }
            let value = map.next_value::<Value>()?;
            fields.push((key, value));
        }
        Ok(Fields(fields))
    }
}

/// The request `fields` hold: its operation, the fields that operation takes (no other), and
/// the screen's language.
fn read(mut fields: Fields) -> Result<LocalizedRequest, String> {
    let index = match fields.take(wire::ADMIN_OP) {
        None => return Err(format!("missing field `{}`", wire::ADMIN_OP)),
        Some(Value::String(op)) => OPERATIONS
            .iter()
            .position(|(name, _)| *name == op)
            .ok_or_else(|| format!("unknown operation `{op}`, expected one of {}", ops()))?,
        Some(Value::Number(n)) => n
            .as_u64()
            .and_then(|i| usize::try_from(i).ok())
            .filter(|i| *i < OPERATIONS.len())
            .ok_or_else(|| {
                format!(
                    "`{}` is the number {n}; an operation's index is 0 to {}",
                    wire::ADMIN_OP,
                    OPERATIONS.len() - 1
                )
            })?,
        Some(other) => {
            return Err(format!(
                "`{}` is {}, expected one of {}",
                wire::ADMIN_OP,
                kind(&other),
                ops()
            ));
        }
    };
    let (op, takes) = OPERATIONS[index];
    let locale = fields.optional_string(op, wire::ADMIN_KEY_LOCALE)?;
    if let Some(tag) = &locale {
        if tag.len() > MAX_LOCALE_LEN {
            return Err(format!(
                "`{}` is {} bytes long; a language tag has at most {MAX_LOCALE_LEN}",
                wire::ADMIN_KEY_LOCALE,
                tag.len()
            ));
        }
    }
    if let Some((key, _)) = fields
        .0
        .iter()
        .find(|(key, _)| !takes.contains(&key.as_str()))
    {
        let expected: Vec<String> = takes
            .iter()
            .chain([&wire::ADMIN_KEY_LOCALE])
            .map(|k| format!("`{k}`"))
            .collect();
        return Err(format!(
            "unknown field `{key}` for `{op}`, which takes {}",
            expected.join(", ")
        ));
    }
    let f = &mut fields;
    let request = match index {
        0 => AdminRequest::State {
            caller_uid: f.optional_u32(op, wire::ADMIN_KEY_CALLER_UID)?,
        },
        1 => AdminRequest::Approve {
            id: f.string(op, wire::ADMIN_KEY_ID)?,
            scopes: f.strings(op, wire::ADMIN_KEY_SCOPES)?,
            access: match f.take(wire::ADMIN_KEY_ACCESS) {
                None => AccessLevel::Full,
                Some(Value::String(level)) => access_level::parse(&level)?,
                Some(other) => return Err(wrong(op, wire::ADMIN_KEY_ACCESS, "a string", &other)),
            },
            duration_secs: f.optional_u64(op, wire::ADMIN_KEY_DURATION_SECS)?,
            caller_uid: f.optional_u32(op, wire::ADMIN_KEY_CALLER_UID)?,
        },
        2 => AdminRequest::Deny {
            id: f.string(op, wire::ADMIN_KEY_ID)?,
            caller_uid: f.optional_u32(op, wire::ADMIN_KEY_CALLER_UID)?,
        },
        _ => {
            let package = f.string(op, wire::ADMIN_KEY_PACKAGE)?;
            let certificate_sha256 = f.optional_string(op, wire::ADMIN_KEY_CERTIFICATE_SHA256)?;
            if index == 3 {
                AdminRequest::Revoke {
                    package,
                    certificate_sha256,
                }
            } else {
                AdminRequest::ClearDenial {
                    package,
                    certificate_sha256,
                }
            }
        }
    };
    Ok(LocalizedRequest { locale, request })
}

impl Fields {
    fn take(&mut self, key: &str) -> Option<Value> {
        let at = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(at).1)
    }

    fn string(&mut self, op: &str, key: &str) -> Result<String, String> {
        match self.take(key) {
            Some(Value::String(text)) => Ok(text),
            None => Err(format!("missing field `{key}` for `{op}`")),
            Some(other) => Err(wrong(op, key, "a string", &other)),
        }
    }

    fn optional_string(&mut self, op: &str, key: &str) -> Result<Option<String>, String> {
        match self.take(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(other) => Err(wrong(op, key, "a string or null", &other)),
        }
    }

    fn strings(&mut self, op: &str, key: &str) -> Result<Vec<String>, String> {
        match self.take(key) {
            Some(Value::Array(items)) => items
                .into_iter()
                .map(|item| match item {
                    Value::String(text) => Ok(text),
                    other => Err(format!(
                        "`{key}` of `{op}` must hold only strings, not {}",
                        kind(&other)
                    )),
                })
                .collect(),
            None => Err(format!("missing field `{key}` for `{op}`")),
            Some(other) => Err(wrong(op, key, "an array of strings", &other)),
        }
    }

    fn optional_u64(&mut self, op: &str, key: &str) -> Result<Option<u64>, String> {
        self.optional_number(op, key, "a whole number, 0 or more, or null", Some)
    }

    fn optional_u32(&mut self, op: &str, key: &str) -> Result<Option<u32>, String> {
        self.optional_number(
            op,
            key,
            "a whole number from 0 to 4294967295, or null",
            |n| u32::try_from(n).ok(),
        )
    }

    /// An optional whole number, `convert` saying whether it is in range.
    fn optional_number<T>(
        &mut self,
        op: &str,
        key: &str,
        expected: &str,
        convert: fn(u64) -> Option<T>,
    ) -> Result<Option<T>, String> {
        match self.take(key) {
            None | Some(Value::Null) => Ok(None),
            Some(found) => match found.as_u64().and_then(convert) {
                Some(n) => Ok(Some(n)),
                None => Err(wrong(op, key, expected, &found)),
            },
        }
    }
}

/// The message for a field of the wrong type or out of range.
fn wrong(op: &str, key: &str, expected: &str, found: &Value) -> String {
    format!("`{key}` of `{op}` must be {expected}, not {}", kind(found))
}

/// What a JSON value is, for a message: its type, a number with its value.
fn kind(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(_) => "a boolean".to_owned(),
        Value::Number(n) => format!("the number {n}"),
        Value::String(_) => "a string".to_owned(),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

/// The operations' names, for a message.
fn ops() -> String {
    let names: Vec<String> = OPERATIONS
        .iter()
        .map(|(name, _)| format!("`{name}`"))
        .collect();
    names.join(", ")
}
