//! Cross-crate tests of cetp-rs; the library target only carries the README's examples, which
//! rustdoc compiles and runs as doctests.
#![doc = include_str!("../README.md")]
