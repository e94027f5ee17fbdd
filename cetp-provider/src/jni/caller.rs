//! The caller identity as the Java template hands it over: a UID and one text block.

use crate::context::{Caller, CallerPackage};

/// Builds the [`Caller`] from `Binder.getCallingUid()` and the template's package description.
///
/// `packages` holds one line per package under the UID: the package name, then optionally a
/// space and the comma-separated hex SHA-256 digests of its signing certificates
/// (`com.example.agent 3f…,a1…`). Package names never contain spaces, commas or newlines, so
/// the format needs no escaping. A negative UID means "unknown".
pub(crate) fn caller_from_java(uid: i32, packages: Option<&str>) -> Caller {
    let packages = packages.map(parse_packages).unwrap_or_default();
    Caller::from_parts(u32::try_from(uid).ok(), packages)
}

fn parse_packages(text: &str) -> Vec<CallerPackage> {
    text.lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let name = fields.next()?;
            let certificate_sha256 = fields
                .next()
                .map(|digests| {
                    digests
                        .split(',')
                        .filter(|d| !d.is_empty())
                        .map(str::to_ascii_lowercase)
                        .collect()
                })
                .unwrap_or_default();
            Some(CallerPackage {
                name: name.to_owned(),
                certificate_sha256,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_uid_with_digests() {
        let caller = caller_from_java(
            10_123,
            Some("com.example.agent AB12,cd34\ncom.example.helper\n\n"),
        );
        assert_eq!(caller.uid(), Some(10_123));
        assert_eq!(
            caller.packages(),
            [
                CallerPackage {
                    name: "com.example.agent".into(),
                    certificate_sha256: vec!["ab12".into(), "cd34".into()],
                },
                CallerPackage {
                    name: "com.example.helper".into(),
                    certificate_sha256: vec![],
                },
            ]
        );
    }

    #[test]
    fn unknown_parts_stay_unknown() {
        assert_eq!(caller_from_java(-1, None), Caller::unknown());
        let only_uid = caller_from_java(0, Some(""));
        assert_eq!(only_uid.uid(), Some(0));
        assert!(only_uid.packages().is_empty());
    }
}
