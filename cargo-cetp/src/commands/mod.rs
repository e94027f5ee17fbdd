//! One module per `cargo cetp` command, each with the `run` function [`crate::run`] calls; what
//! they build and run on is [`crate::android_build`].

pub mod build;
pub mod check;
pub mod init;
pub mod mcp;
pub mod new;
pub mod preview;
pub mod test;
