//! What the commands build and run on: the app crate as `cargo metadata` describes it
//! ([`app`]), its Android app module ([`android`], found by [`layout`]), the runner that builds
//! its provider for this machine ([`runner`]), its host bundle ([`bundle`], Maven's command line
//! and local repository in [`bundle::maven`]) and the Maven projects that run it under
//! Robolectric ([`robolectric`]); the Rust builds the app's Gradle project already has
//! ([`rust_build`]).

pub mod android;
pub mod app;
pub mod bundle;
pub(crate) mod layout;
pub mod robolectric;
pub mod runner;
pub(crate) mod rust_build;
