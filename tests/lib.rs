//! Cross-crate tests of cetp-rs; the library target only carries the README's examples, which
//! rustdoc compiles and runs as doctests.
#![doc = include_str!("../README.md")]

// The Android template's README: its Rust examples (an app's `src/lib.rs`, a library with its
// own `JNI_OnLoad`, localized scopes) compile as doctests too.
#[cfg(doctest)]
#[doc = include_str!("../android-template/README.md")]
struct AndroidTemplateReadme;
