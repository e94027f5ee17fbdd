//! [`Caller`]: who is on the other end of a call, as the platform reports it.

use std::fmt;

/// The identity of the app on the other end of a call, as the platform reports it.
///
/// On Android the bridge fills it from `Binder.getCallingUid()` and the PackageManager: every
/// package sharing the UID, each with the SHA-256 digests of its signing certificates. Host tests
/// build one by hand.
///
/// ```
/// use cetp_provider::Caller;
/// let caller = Caller::app(10_123, "com.example.agent").with_certificate("ab12cd");
/// assert_eq!(caller.uid(), Some(10_123));
/// assert_eq!(caller.package_names().collect::<Vec<_>>(), ["com.example.agent"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caller {
    uid: Option<u32>,
    packages: Vec<CallerPackage>,
}

/// One package installed under the caller's UID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallerPackage {
    /// The package name, e.g. `com.clawseed.android`.
    pub name: String,
    /// Lower-case hex SHA-256 digests of the package's signing certificates; empty when unknown.
    pub certificate_sha256: Vec<String>,
}

impl Caller {
    /// A caller whose identity is unknown (no UID, no packages).
    pub fn unknown() -> Self {
        Caller::default()
    }

    /// A caller with one package under `uid`.
    pub fn app(uid: u32, package: impl Into<String>) -> Self {
        Caller {
            uid: Some(uid),
            packages: vec![CallerPackage {
                name: package.into(),
                certificate_sha256: Vec::new(),
            }],
        }
    }

    /// A caller with a UID and every package the platform reports for it.
    pub fn from_parts(uid: Option<u32>, packages: Vec<CallerPackage>) -> Self {
        Caller { uid, packages }
    }

    /// Adds another package under the same UID (a shared UID).
    pub fn with_package(mut self, package: impl Into<String>) -> Self {
        self.packages.push(CallerPackage {
            name: package.into(),
            certificate_sha256: Vec::new(),
        });
        self
    }

    /// Adds a signing-certificate digest to the most recently added package.
    pub fn with_certificate(mut self, sha256_hex: impl Into<String>) -> Self {
        if let Some(last) = self.packages.last_mut() {
            last.certificate_sha256
                .push(sha256_hex.into().to_ascii_lowercase());
        }
        self
    }

    /// The calling UID, if known.
    pub fn uid(&self) -> Option<u32> {
        self.uid
    }

    /// The packages under the calling UID.
    pub fn packages(&self) -> &[CallerPackage] {
        &self.packages
    }

    /// The package names under the calling UID.
    pub fn package_names(&self) -> impl Iterator<Item = &str> {
        self.packages.iter().map(|p| p.name.as_str())
    }

    /// A short description for logs: `uid 10123 (com.a, com.b)` (also what `Display` writes).
    ///
    /// ```
    /// use cetp_provider::Caller;
    /// let caller = Caller::app(10_123, "com.a").with_package("com.b");
    /// assert_eq!(caller.describe(), "uid 10123 (com.a, com.b)");
    /// assert_eq!(Caller::unknown().to_string(), "unknown caller");
    /// ```
    pub fn describe(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names = self.package_names();
        match (self.uid, names.next()) {
            (Some(uid), None) => return write!(f, "uid {uid}"),
            (None, None) => return f.write_str("unknown caller"),
            (Some(uid), Some(first)) => write!(f, "uid {uid} ({first}")?,
            (None, Some(first)) => f.write_str(first)?,
        }
        for name in names {
            write!(f, ", {name}")?;
        }
        if self.uid.is_some() {
            f.write_str(")")?;
        }
        Ok(())
    }
}
