//! What the consent dialog says about the app that asks: what it already holds, per scope, and
//! whether the request would add to that. Decided here, once, from the grants a call of the app
//! would be admitted by, so the screens only render it.

use serde::{Deserialize, Serialize};

use super::store::{Grant, ScopeGrant, ScopeState};
use crate::context::AccessLevel;

/// One package of a pending request: the identity the platform reported for the app that asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PendingPackage {
    /// The package name.
    pub name: String,
    /// Lower-case hex SHA-256 digests of its signing certificates (empty when unknown).
    pub certificate_sha256: Vec<String>,
}

/// What the app of a pending request already holds: each scope in force that a grant of one of
/// its packages gives (the grant pinned to a certificate the platform reported for that
/// package), in the provider's declaration order, and what it may use of the tools that need no
/// scope. Where two of its packages hold one scope differently, the entry is the one that gives
/// the most (full over limited, then the later expiry, never-expiring latest of all), so it never
/// understates what the app can read. Scopes the request asks for now are not among them: the
/// dialog lists those as the question.
///
/// ```json
/// {"scopes": [{"scope": "notes", "access": "limited", "granted_at_ms": 1767225600000,
///              "expires_at_ms": 1767229200000}],
///  "no_scope": null}
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Holdings {
    /// The scopes in force, each with the level and expiry that gives the most.
    pub scopes: Vec<ScopeState>,
    /// What the tools that need no scope get, when an approval in force named no scope.
    pub no_scope: Option<ScopeGrant>,
}

impl Holdings {
    /// Whether the app holds nothing in force.
    pub fn is_empty(&self) -> bool {
        self.scopes.is_empty() && self.no_scope.is_none()
    }

    /// What `packages` (a pending request's, with the certificates the platform reported) hold
    /// among `grants` at `now_ms`, apart from the scopes `asked`; in the order of `declared`
    /// (the provider's scopes), any other scope after them by name.
    pub(crate) fn of(
        grants: &[Grant],
        packages: &[PendingPackage],
        asked: &[&str],
        declared: &[(String, String)],
        now_ms: u64,
    ) -> Self {
        let mut scopes: Vec<ScopeState> = Vec::new();
        let mut no_scope: Option<ScopeGrant> = None;
        for grant in grants.iter().filter(|g| covers(g, packages)) {
            for (scope, held) in &grant.scopes {
                if asked.contains(&scope.as_str()) || held.is_expired(now_ms) {
                    continue;
                }
                match scopes.iter_mut().find(|s| &s.scope == scope) {
                    Some(known) => known.grant = wider(known.grant, *held),
                    None => scopes.push(ScopeState {
                        scope: scope.clone(),
                        grant: *held,
                        expired: false,
                    }),
                }
            }
            if let Some(held) = grant.no_scope.filter(|h| !h.is_expired(now_ms)) {
                no_scope = Some(no_scope.map_or(held, |known| wider(known, held)));
            }
        }
        let rank = |name: &str| declared.iter().position(|(n, _)| n == name);
        crate::sort::sort_by(&mut scopes, |a, b| {
            let (ra, rb) = (rank(&a.scope), rank(&b.scope));
            match (ra, rb) {
                (Some(x), Some(y)) => x.cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => a.scope.cmp(&b.scope),
            }
        });
        Holdings { scopes, no_scope }
    }
}

/// Whether `grant` is pinned to one of `packages` and to a certificate the platform reported for
/// it: the identity a call of that app would be admitted by. A grant without a certificate
/// covers nobody.
fn covers(grant: &Grant, packages: &[PendingPackage]) -> bool {
    let Some(cert) = grant.certificate_sha256.as_deref() else {
        return false;
    };
    packages.iter().any(|p| {
        p.name == grant.package
            && p.certificate_sha256
                .iter()
                .any(|d| d.eq_ignore_ascii_case(cert))
    })
}

/// Of two approvals of one scope, the one that gives more: full over limited, then the later
/// expiry (none latest of all); `a` on a tie.
fn wider(a: ScopeGrant, b: ScopeGrant) -> ScopeGrant {
    let full = |g: &ScopeGrant| g.access == AccessLevel::Full;
    if full(&a) != full(&b) {
        return if full(&a) { a } else { b };
    }
    match (a.expires_at_ms, b.expires_at_ms) {
        (None, _) => a,
        (_, None) => b,
        (Some(x), Some(y)) => {
            if x >= y {
                a
            } else {
                b
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_000_000;

    fn package(name: &str, certs: &[&str]) -> PendingPackage {
        PendingPackage {
            name: name.to_owned(),
            certificate_sha256: certs.iter().map(|c| (*c).to_owned()).collect(),
        }
    }

    fn grant(package: &str, cert: Option<&str>, scopes: &[(&str, ScopeGrant)]) -> Grant {
        let mut grant = Grant::new(package.to_owned(), cert.map(str::to_owned));
        for (scope, held) in scopes {
            grant.scopes.insert((*scope).to_owned(), *held);
        }
        grant
    }

    fn full(expires: Option<u64>) -> ScopeGrant {
        ScopeGrant::new(AccessLevel::Full, 0, expires)
    }

    fn limited(expires: Option<u64>) -> ScopeGrant {
        ScopeGrant::new(AccessLevel::Limited, 0, expires)
    }

    fn declared(names: &[&str]) -> Vec<(String, String)> {
        names
            .iter()
            .map(|n| ((*n).to_owned(), String::new()))
            .collect()
    }

    fn held(holdings: &Holdings) -> Vec<(&str, ScopeGrant)> {
        holdings
            .scopes
            .iter()
            .map(|s| (s.scope.as_str(), s.grant))
            .collect()
    }

    #[test]
    fn a_grant_for_another_certificate_or_none_never_covers() {
        let app = [package("a", &["c1"])];
        let grants = [
            grant("a", Some("c2"), &[("notes", full(None))]),
            grant("a", None, &[("mail", full(None))]),
            grant("b", Some("c1"), &[("calendar", full(None))]),
        ];
        let holdings = Holdings::of(&grants, &app, &[], &declared(&[]), NOW);
        assert!(holdings.is_empty(), "{holdings:?}");
        // The certificate as the platform spells it, in any case.
        let grants = [grant("a", Some("C1"), &[("notes", full(None))])];
        let holdings = Holdings::of(&grants, &app, &[], &declared(&[]), NOW);
        assert_eq!(held(&holdings), [("notes", full(None))]);
    }

    #[test]
    fn an_expired_grant_never_covers() {
        let app = [package("a", &["c1"])];
        let mut lapsed = grant("a", Some("c1"), &[("notes", full(Some(NOW)))]);
        lapsed.no_scope = Some(full(Some(NOW - 1)));
        let holdings = Holdings::of(&[lapsed.clone()], &app, &[], &declared(&[]), NOW);
        assert!(holdings.is_empty(), "{holdings:?}");
        let holdings = Holdings::of(&[lapsed], &app, &[], &declared(&[]), NOW - 2);
        assert_eq!(held(&holdings), [("notes", full(Some(NOW)))]);
        assert_eq!(holdings.no_scope, Some(full(Some(NOW - 1))));
    }

    #[test]
    fn full_beats_limited_then_the_later_expiry_across_packages() {
        let app = [package("a", &["c1"]), package("b", &["c2"])];
        let grants = [
            grant(
                "a",
                Some("c1"),
                &[("notes", limited(None)), ("mail", full(Some(NOW + 5)))],
            ),
            grant(
                "b",
                Some("c2"),
                &[("notes", full(Some(NOW + 1))), ("mail", full(None))],
            ),
        ];
        let holdings = Holdings::of(&grants, &app, &[], &declared(&["notes", "mail"]), NOW);
        assert_eq!(
            held(&holdings),
            [("notes", full(Some(NOW + 1))), ("mail", full(None))]
        );
    }

    /// Two packages of the app hold one scope at one level until different times: the dialog
    /// says the later one (the app can read until then), in whichever order the grants come,
    /// for the scopes and for what the tools without a scope get.
    #[test]
    fn of_two_expiries_of_one_scope_the_later_is_shown() {
        let app = [package("a", &["c1"]), package("b", &["c2"])];
        let mut sooner = grant(
            "a",
            Some("c1"),
            &[
                ("notes", full(Some(NOW + 5))),
                ("mail", limited(Some(NOW + 9))),
            ],
        );
        sooner.no_scope = Some(full(Some(NOW + 5)));
        let mut later = grant(
            "b",
            Some("c2"),
            &[
                ("notes", full(Some(NOW + 9))),
                ("mail", limited(Some(NOW + 5))),
            ],
        );
        later.no_scope = Some(full(Some(NOW + 9)));
        for grants in [[sooner.clone(), later.clone()], [later, sooner]] {
            let holdings = Holdings::of(&grants, &app, &[], &declared(&["notes", "mail"]), NOW);
            assert_eq!(
                held(&holdings),
                [
                    ("notes", full(Some(NOW + 9))),
                    ("mail", limited(Some(NOW + 9)))
                ]
            );
            assert_eq!(holdings.no_scope, Some(full(Some(NOW + 9))));
        }
    }

    #[test]
    fn scopes_asked_for_now_are_not_held_and_the_order_is_the_providers() {
        let app = [package("a", &["c1"])];
        let grants = [grant(
            "a",
            Some("c1"),
            &[
                ("zeta", full(None)),
                ("calendar", limited(None)),
                ("notes", full(None)),
                ("alpha", full(None)),
            ],
        )];
        let holdings = Holdings::of(
            &grants,
            &app,
            &["calendar"],
            &declared(&["notes", "calendar", "zeta"]),
            NOW,
        );
        assert_eq!(
            held(&holdings),
            [
                ("notes", full(None)),
                ("zeta", full(None)),
                ("alpha", full(None))
            ]
        );
    }
}
