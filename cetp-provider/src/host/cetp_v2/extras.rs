//! A call's extras and a reply's entries as flat text, the way the Android template passes
//! them across JNI without knowing any protocol's fields: `key, tag, value` triples, the tag
//! naming the Bundle type ([`TAG_STRING`] and the others), the value as text (numbers in
//! decimal, an `int[]` comma-separated). The template reads the extras of [`TYPED_EXTRAS`] by
//! name, with these types, and writes every entry back with the type its tag names; the one
//! entries it makes itself are the `resolution` PendingIntent ([`TAG_RESOLUTION`]) and the
//! `result_fd` of a large result ([`TAG_RESULT_FILE`]).

use std::borrow::Cow;

use super::words::{
    EXTRA_CONSUMER_CAPABILITIES, EXTRA_CONSUMER_VERSIONS, EXTRA_DEADLINE_AT_MS, EXTRA_OPERATION_ID,
    EXTRA_PROTOCOL_VERSION, EXTRA_RESUME_TOKEN, EXTRA_SESSION_TOKEN,
};
use super::{BundleValue, V2Request};
use crate::wire::{EXTRA_ARGS, EXTRA_REQUEST_ID, EXTRA_TOOL_NAME};

/// `String`.
pub const TAG_STRING: &str = "s";
/// `int`.
pub const TAG_INT: &str = "i";
/// `long`.
pub const TAG_LONG: &str = "l";
/// `boolean` (`true` / `false`).
pub const TAG_BOOLEAN: &str = "b";
/// `int[]`, comma-separated.
pub const TAG_INT_ARRAY: &str = "I";
/// Reply only: the `resolution` PendingIntent for the caller whose UID is the value.
pub const TAG_RESOLUTION: &str = "r";
/// Reply only: the `result_fd`, the file at the path the value names opened read-only as a
/// `ParcelFileDescriptor`, then unlinked.
pub const TAG_RESULT_FILE: &str = "f";

/// The most extras read from one call besides [`TYPED_EXTRAS`]; an agent sends a handful.
const MAX_EXTRAS: usize = 32;

/// Every extra a typed call is read for (v1's and v2's), which the template passes by name and
/// which are read wherever they come among the extras.
pub const TYPED_EXTRAS: [&str; 10] = [
    EXTRA_PROTOCOL_VERSION,
    EXTRA_SESSION_TOKEN,
    EXTRA_REQUEST_ID,
    EXTRA_DEADLINE_AT_MS,
    EXTRA_TOOL_NAME,
    EXTRA_ARGS,
    EXTRA_RESUME_TOKEN,
    EXTRA_CONSUMER_VERSIONS,
    EXTRA_CONSUMER_CAPABILITIES,
    EXTRA_OPERATION_ID,
];

/// Which protocol a typed call speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Protocol {
    /// CETP v1: no `protocol_version` 2, and not `negotiate`.
    V1,
    /// CETP v2 ([`V2Request::is_v2`]).
    V2,
    /// `protocol_version` is 2, but a `Long` or a `String` where the spec says `Int`: an agent
    /// that means v2, answered with v2's `INVALID_REQUEST` rather than a v1 reply it cannot read.
    MistypedV2,
}

/// The extras of one call, as the template flattened them.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Extras {
    entries: Vec<(String, String, String)>,
}

impl Extras {
    /// From `key, tag, value` triples (an incomplete triple or a null element is skipped).
    /// Each of [`TYPED_EXTRAS`] counts wherever it comes (its first entry); of the others, only
    /// the first 32, so no number of other extras can push a protocol key out.
    pub fn from_flat(flat: Vec<Option<String>>) -> Self {
        let mut entries: Vec<(String, String, String)> = Vec::new();
        let mut others = 0;
        let mut items = flat.into_iter();
        while let (Some(key), Some(tag), Some(value)) = (items.next(), items.next(), items.next()) {
            let (Some(key), Some(tag), Some(value)) = (key, tag, value) else {
                continue;
            };
            if TYPED_EXTRAS.contains(&key.as_str()) {
                if !entries.iter().any(|(have, _, _)| *have == key) {
                    entries.push((key, tag, value));
                }
            } else if others < MAX_EXTRAS {
                others += 1;
                entries.push((key, tag, value));
            }
        }
        Extras { entries }
    }

    /// The protocol of a call of `method` with these extras: v2 for `protocol_version` = 2 as
    /// an `Int` or for `negotiate`; [`Protocol::MistypedV2`] for a 2 sent as a `Long` or a
    /// `String`; v1 for anything else (absent, another number, another type).
    pub fn protocol(&self, method: &str) -> Protocol {
        if V2Request::is_v2(method, self.int(EXTRA_PROTOCOL_VERSION)) {
            return Protocol::V2;
        }
        let mistyped = self
            .get(EXTRA_PROTOCOL_VERSION, &[TAG_LONG, TAG_STRING])
            .is_some_and(|value| value.trim().parse::<i64>() == Ok(2));
        if mistyped {
            Protocol::MistypedV2
        } else {
            Protocol::V1
        }
    }

    fn get(&self, key: &str, tags: &[&str]) -> Option<&str> {
        self.entries
            .iter()
            .find(|(k, tag, _)| k == key && tags.contains(&tag.as_str()))
            .map(|(_, _, value)| value.as_str())
    }

    /// A `String` extra.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.get(key, &[TAG_STRING])
    }

    /// An `int` extra.
    pub fn int(&self, key: &str) -> Option<i32> {
        self.get(key, &[TAG_INT])?.parse().ok()
    }

    /// A `long` extra (an `int` one too: the agent's number either way).
    pub fn long(&self, key: &str) -> Option<i64> {
        self.get(key, &[TAG_LONG, TAG_INT])?.parse().ok()
    }

    /// An `int[]` extra (an element that is not a number makes it unreadable).
    pub fn ints(&self, key: &str) -> Option<Vec<i32>> {
        let text = self.get(key, &[TAG_INT_ARRAY])?;
        if text.is_empty() {
            return Some(Vec::new());
        }
        text.split(',').map(|n| n.trim().parse().ok()).collect()
    }
}

/// `entries` as `key, tag, value` triples.
pub fn flatten<'a>(entries: &[(&'a str, BundleValue<'a>)]) -> Vec<Cow<'a, str>> {
    let mut flat = Vec::with_capacity(entries.len() * 3);
    for (key, value) in entries {
        let (tag, text) = match *value {
            BundleValue::Text(text) => (TAG_STRING, Cow::Borrowed(text)),
            BundleValue::Int(n) => (TAG_INT, Cow::Owned(n.to_string())),
            BundleValue::Long(n) => (TAG_LONG, Cow::Owned(n.to_string())),
            BundleValue::Bool(b) => (TAG_BOOLEAN, Cow::Borrowed(if b { "true" } else { "false" })),
            BundleValue::Resolution(uid) => (TAG_RESOLUTION, Cow::Owned(uid.to_string())),
            BundleValue::ResultFile(path) => (TAG_RESULT_FILE, Cow::Borrowed(path)),
        };
        flat.extend([Cow::Borrowed(*key), Cow::Borrowed(tag), text]);
    }
    flat
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(items: &[Option<&str>]) -> Vec<Option<String>> {
        items.iter().map(|i| i.map(str::to_owned)).collect()
    }

    #[test]
    fn extras_are_read_by_key_and_type() {
        let extras = Extras::from_flat(flat(&[
            Some("protocol_version"),
            Some("i"),
            Some("2"),
            Some("deadline_at_ms"),
            Some("l"),
            Some("1700000030000"),
            Some("consumer_versions"),
            Some("I"),
            Some("2,1"),
            Some("request_id"),
            Some("s"),
            Some("abc"),
            Some("tool_name"),
            None,
            Some("x"),
            Some("trailing"),
            Some("s"),
        ]));
        assert_eq!(extras.int("protocol_version"), Some(2));
        assert_eq!(extras.long("deadline_at_ms"), Some(1_700_000_030_000));
        assert_eq!(extras.long("protocol_version"), Some(2));
        assert_eq!(extras.ints("consumer_versions"), Some(vec![2, 1]));
        assert_eq!(extras.text("request_id"), Some("abc"));
        // The wrong type reads as absent, as Bundle.getString of an int does.
        assert_eq!(extras.text("protocol_version"), None);
        assert_eq!(extras.int("deadline_at_ms"), None);
        assert_eq!(extras.text("tool_name"), None, "a null tag");
        assert_eq!(extras.text("trailing"), None, "an incomplete triple");
    }

    #[test]
    fn unreadable_numbers_are_absent_and_extras_are_bounded() {
        let extras = Extras::from_flat(flat(&[
            Some("a"),
            Some("i"),
            Some("two"),
            Some("b"),
            Some("I"),
            Some("2,x"),
            Some("c"),
            Some("I"),
            Some(""),
        ]));
        assert_eq!(extras.int("a"), None);
        assert_eq!(extras.ints("b"), None);
        assert_eq!(extras.ints("c"), Some(vec![]));
        let many: Vec<Option<String>> = (0..100)
            .flat_map(|i| {
                [
                    Some(format!("k{i}")),
                    Some("s".to_owned()),
                    Some("v".to_owned()),
                ]
            })
            .collect();
        let extras = Extras::from_flat(many);
        assert_eq!(extras.text("k31"), Some("v"));
        assert_eq!(extras.text("k32"), None);
    }

    fn triple(key: &str, tag: &str, value: &str) -> [Option<String>; 3] {
        [key, tag, value].map(|text| Some(text.to_owned()))
    }

    #[test]
    fn no_number_of_other_extras_pushes_out_a_protocol_key() {
        let mut flat: Vec<Option<String>> = (0..60)
            .flat_map(|i| triple(&format!("junk{i:02}"), "s", "v"))
            .collect();
        flat.extend(triple("protocol_version", "i", "2"));
        flat.extend(triple("session_token", "s", "t"));
        flat.extend(triple("request_id", "s", "r"));
        flat.extend(triple("deadline_at_ms", "l", "5"));
        flat.extend(triple("tool_name", "s", "find"));
        flat.extend(triple("args", "s", "{}"));
        flat.extend(triple("resume_token", "s", "k"));
        flat.extend(triple("consumer_versions", "I", "2"));
        flat.extend(triple("consumer_capabilities", "s", "[]"));
        flat.extend(triple("tool_name", "s", "second"));
        let extras = Extras::from_flat(flat);
        assert_eq!(extras.protocol("list_tools"), Protocol::V2);
        assert_eq!(extras.text("session_token"), Some("t"));
        assert_eq!(extras.text("request_id"), Some("r"));
        assert_eq!(extras.long("deadline_at_ms"), Some(5));
        assert_eq!(extras.text("tool_name"), Some("find"), "the first one");
        assert_eq!(extras.text("args"), Some("{}"));
        assert_eq!(extras.text("resume_token"), Some("k"));
        assert_eq!(extras.ints("consumer_versions"), Some(vec![2]));
        assert_eq!(extras.text("consumer_capabilities"), Some("[]"));
        assert_eq!(extras.text("junk31"), Some("v"));
        assert_eq!(extras.text("junk32"), None, "others are bounded");
    }

    #[test]
    fn a_protocol_version_of_2_in_another_type_is_not_answered_as_v1() {
        let call = |tag: &str, value: &str| {
            Extras::from_flat(triple("protocol_version", tag, value).to_vec())
        };
        assert_eq!(call("i", "2").protocol("list_tools"), Protocol::V2);
        assert_eq!(call("l", "2").protocol("list_tools"), Protocol::MistypedV2);
        assert_eq!(
            call("s", "2").protocol("execute_tool"),
            Protocol::MistypedV2
        );
        assert_eq!(
            call("s", " 2 ").protocol("list_tools"),
            Protocol::MistypedV2
        );
        for (tag, value) in [
            ("i", "1"),
            ("l", "1"),
            ("s", "1"),
            ("s", "two"),
            ("b", "true"),
            ("i", "3"),
        ] {
            assert_eq!(
                call(tag, value).protocol("list_tools"),
                Protocol::V1,
                "{tag} {value}"
            );
        }
        assert_eq!(Extras::default().protocol("list_tools"), Protocol::V1);
        assert_eq!(Extras::default().protocol("negotiate"), Protocol::V2);
    }

    #[test]
    fn entries_flatten_with_their_tags() {
        let entries = [
            ("protocol_version", BundleValue::Int(2)),
            ("retryable", BundleValue::Bool(false)),
            ("retry_after_ms", BundleValue::Long(1500)),
            ("resolution", BundleValue::Resolution(10_300)),
            ("status", BundleValue::Text("error")),
        ];
        let flat: Vec<String> = flatten(&entries).into_iter().map(Cow::into_owned).collect();
        assert_eq!(
            flat,
            [
                "protocol_version",
                "i",
                "2",
                "retryable",
                "b",
                "false",
                "retry_after_ms",
                "l",
                "1500",
                "resolution",
                "r",
                "10300",
                "status",
                "s",
                "error"
            ]
        );
    }
}
