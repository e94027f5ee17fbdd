//! One module per `cargo cetp` command, each with the `run` function [`crate::run`] calls; what
//! they build and run on is [`crate::android_build`].

pub(crate) mod build;
pub mod check;
pub(crate) mod init;
pub(crate) mod mcp;
pub(crate) mod new;
pub(crate) mod preview;
pub(crate) mod test;
