//! A child process holds copies of all its parent's descriptors from `fork` until `exec`; the
//! grant store's lock must not stay alive in it. This test holds a child in that window (a
//! `pre_exec` hook that waits for a byte), closes a store and opens it again meanwhile.
//!
//! Alone in its own test binary: the child it starts would otherwise hold copies of the
//! descriptors of every other test running beside it.
#![cfg(unix)]

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::process::Command;

use cetp_provider::auth::Auth;
use cetp_provider::{Provider, tool, tools};

/// Answers "pong".
#[tool]
fn ping() -> String {
    "pong".to_owned()
}

fn open(dir: &std::path::Path) -> Result<Provider, String> {
    Provider::builder("Notes")
        .tools(tools![ping])
        .auth(Auth::user_approval().store_dir(dir))
        .build()
        .map_err(|e| e.to_string())
}

#[test]
fn a_child_between_fork_and_exec_does_not_hold_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let first = open(dir.path()).expect("opens");

    // `forked`: the child says it exists; `release`: the parent lets it go on to `exec`.
    let (mut forked, forked_in_child) = UnixStream::pair().unwrap();
    let (mut release, release_in_child) = UnixStream::pair().unwrap();
    let (forked_fd, release_fd) = {
        use std::os::fd::AsRawFd;
        (forked_in_child.as_raw_fd(), release_in_child.as_raw_fd())
    };
    let mut command = Command::new("true");
    // SAFETY: the hook only calls `write` and `read`, both async-signal-safe, on descriptors
    // this test keeps open until the child has been waited for.
    unsafe {
        command.pre_exec(move || {
            let mut byte = [1u8];
            if libc::write(forked_fd, byte.as_ptr().cast(), 1) != 1 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::read(release_fd, byte.as_mut_ptr().cast(), 1) != 1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    // `spawn` returns once the child has `exec`ed, so it runs on its own thread.
    let spawner = std::thread::spawn(move || command.spawn().and_then(|mut c| c.wait()));
    let mut byte = [0u8];
    forked.read_exact(&mut byte).unwrap();

    // The child holds a copy of the lock file's descriptor now.
    drop(first);
    let reopened = open(dir.path());
    release.write_all(&[1]).unwrap();
    let status = spawner.join().unwrap().expect("the child ran");
    assert!(status.success());
    drop((forked_in_child, release_in_child));
    reopened.expect("the store opens again while a child of this process has not exec'd yet");
}
