//! Crash consistency of the grant store: a child process (this test binary, re-executed in
//! child mode) approves, denies and revokes in a loop and is killed with SIGKILL. Every other
//! kill comes after a pseudo-random number of acknowledged writes; the others land inside the
//! write window by construction: the child's file system (the store's [`StoreFs`] seam over
//! the real one) stops at a pseudo-random step of a save (temp open, write, fsync, rename,
//! directory fsync, of the last good copy or of the file), says so, and waits to be killed.
//! After every kill the store must parse, be version 2, and hold exactly the state after the
//! last acknowledged operation or the one after it (written but not yet acknowledged). The
//! next child resumes from that state.
//!
//! A kill keeps the page cache, so this test cannot tell whether fsyncs happen; the power-loss
//! tests in `faults.rs` do.
#![cfg(unix)]

use super::support;

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use cetp_provider::auth::{
    Auth, LockGuard, ManualClock, OsFs, STORE_FILE_NAME, StoreFile, StoreFs,
};
use cetp_provider::{AccessLevel, Caller, ErrorCode, Provider};
use serde_json::{Value, json};
use support::{call, listed, provider};

const CHILD_DIR_ENV: &str = "CETP_AUTH_CRASH_CHILD_DIR";
const CHILD_START_ENV: &str = "CETP_AUTH_CRASH_CHILD_START";
/// When set, the child stops at its `n`-th save step and waits to be killed.
const CHILD_PAUSE_ENV: &str = "CETP_AUTH_CRASH_CHILD_PAUSE_AT";
/// The child's line when it stopped inside a save: `CETP-PAUSED <step>`.
const PAUSED: &str = "CETP-PAUSED ";
/// The steps of one save where the child can stop: five for the file, then five for the last
/// good copy (removing the old copy first is not one of them).
const STEPS_PER_SAVE: u64 = 10;
const KILLS: usize = 200;
/// The child's progress line: `CETP-ACK <op index>`.
const ACK: &str = "CETP-ACK ";
/// The child stops by itself after this many operations (the parent kills it long before).
const CHILD_MAX_OPS: u64 = 64;
/// A kill comes after 0..MAX_ACKS_BEFORE_KILL acknowledged operations.
const MAX_ACKS_BEFORE_KILL: u64 = 5;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// Approve `com.crash.p{i}` (limited when `i % 3 == 0`; `calendar` too when odd).
    Approve,
    /// Deny `com.crash.p{i}`.
    Deny,
    /// Revoke `com.crash.p{i-1}`.
    Revoke,
}

fn op(i: u64) -> Op {
    match i % 5 {
        2 => Op::Deny,
        4 => Op::Revoke,
        _ => Op::Approve,
    }
}

fn package(i: u64) -> String {
    format!("com.crash.p{i}")
}

fn cert(i: u64) -> String {
    format!("{i:064x}")
}

fn caller(i: u64) -> Caller {
    Caller::app(40_000 + u32::try_from(i).unwrap(), package(i)).with_certificate(cert(i))
}

fn open(dir: &Path) -> Provider {
    provider(
        Auth::user_approval()
            .store_dir(dir)
            .clock(ManualClock::new(7)),
    )
}

/// The real file system, except that the `pause_at`-th save step prints `CETP-PAUSED <step>`
/// and never returns: the parent kills the child there, inside the write window.
struct PausingFs {
    steps: AtomicU64,
    pause_at: u64,
}

impl PausingFs {
    fn step(&self, what: &str) {
        if self.steps.fetch_add(1, Ordering::SeqCst) == self.pause_at {
            let mut out = io::stdout().lock();
            writeln!(out, "{PAUSED}{what}").unwrap();
            out.flush().unwrap();
            loop {
                std::thread::park();
            }
        }
    }
}

struct PausingFile {
    fs: Arc<PausingFs>,
    file: Box<dyn StoreFile>,
}

impl StoreFile for PausingFile {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.fs.step("write");
        self.file.write_all(bytes)
    }
    fn sync(&mut self) -> io::Result<()> {
        self.fs.step("fsync");
        self.file.sync()
    }
}

struct Pausing(Arc<PausingFs>);

impl StoreFs for Pausing {
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        OsFs.create_dir_all(dir)
    }
    fn lock(&self, path: &Path) -> io::Result<LockGuard> {
        OsFs.lock(path)
    }
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        OsFs.read(path)
    }
    fn list(&self, dir: &Path) -> io::Result<Vec<OsString>> {
        OsFs.list(dir)
    }
    fn create_new(&self, path: &Path) -> io::Result<Box<dyn StoreFile>> {
        self.0.step("open");
        Ok(Box::new(PausingFile {
            fs: self.0.clone(),
            file: OsFs.create_new(path)?,
        }))
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.0.step("rename");
        OsFs.rename(from, to)
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        OsFs.remove(path)
    }
    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        self.0.step("dir-fsync");
        OsFs.sync_dir(dir)
    }
}

/// The store content (grants, denials) after operations `0..n`, as the file spells it.
fn expected_after(n: u64) -> (Vec<Value>, Vec<Value>) {
    let mut grants: Vec<(u64, Value)> = Vec::new();
    let mut denials = Vec::new();
    for i in 0..n {
        match op(i) {
            Op::Approve => {
                let access = if i % 3 == 0 { "limited" } else { "full" };
                let scope = json!({"access": access, "granted_at_ms": 7, "expires_at_ms": null});
                let scopes = if i % 2 == 1 {
                    json!({"calendar": scope, "notes": scope})
                } else {
                    json!({"notes": scope})
                };
                grants.push((
                    i,
                    json!({
                        "package": package(i), "certificate_sha256": cert(i), "scopes": scopes
                    }),
                ));
            }
            Op::Deny => denials.push(json!({
                "package": package(i), "certificate_sha256": cert(i), "denied_at_ms": 7
            })),
            Op::Revoke => grants.retain(|(j, _)| *j != i - 1),
        }
    }
    (grants.into_iter().map(|(_, g)| g).collect(), denials)
}

/// Child mode: runs operations from `CETP_AUTH_CRASH_CHILD_START` on, printing `CETP-ACK <i>` after
/// each one returned (i.e. after its write was fsynced and renamed into place).
#[test]
#[ignore = "the child process of `store_survives_sigkill_at_any_point`"]
fn crash_child() {
    let Ok(dir) = std::env::var(CHILD_DIR_ENV) else {
        return;
    };
    let start: u64 = std::env::var(CHILD_START_ENV).unwrap().parse().unwrap();
    let provider = match std::env::var(CHILD_PAUSE_ENV) {
        Ok(at) => provider(
            Auth::user_approval()
                .store_dir(&dir)
                .clock(ManualClock::new(7))
                .store_fs(Arc::new(Pausing(Arc::new(PausingFs {
                    steps: AtomicU64::new(0),
                    pause_at: at.parse().unwrap(),
                })))),
        ),
        Err(_) => open(Path::new(&dir)),
    };
    let auth = provider.authorizer();
    // The pending request an operation needs is recorded (no write) before the previous
    // operation is acknowledged, so that after an ack the child goes straight to writing.
    let prepare = |i: u64| -> Option<String> {
        let tool = match op(i) {
            Op::Approve if i % 2 == 1 => "agenda",
            Op::Approve => "read_notes",
            Op::Deny => "ping",
            Op::Revoke => return None,
        };
        let answer = call(&provider, &caller(i), tool);
        assert_eq!(
            answer.error_code(),
            Some(ErrorCode::AuthRequired),
            "{answer}"
        );
        auth.pending()
            .into_iter()
            .find(|p| p.uid == caller(i).uid())
            .map(|p| p.id)
    };
    let mut prepared = prepare(start);
    for i in start..start + CHILD_MAX_OPS {
        match (op(i), prepared.take()) {
            (Op::Approve, Some(id)) => {
                let access = if i % 3 == 0 {
                    AccessLevel::Limited
                } else {
                    AccessLevel::Full
                };
                auth.approve(&id, listed(&provider, &id).access(access))
                    .unwrap();
            }
            (Op::Deny, Some(id)) => {
                auth.deny(&id).unwrap();
            }
            (Op::Revoke, None) => {
                assert_eq!(auth.revoke(&package(i - 1), None), Ok(1));
            }
            other => panic!("op {i}: {other:?}"),
        }
        prepared = prepare(i + 1);
        println!("{ACK}{i}");
    }
    std::process::exit(0);
}

/// SplitMix64: a seeded, dependency-free pseudo-random sequence.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

#[test]
fn store_survives_sigkill_at_any_point() {
    let started = Instant::now();
    let exe = std::env::current_exe().unwrap();
    // The child test by its full name in this test binary (the module path without the crate).
    let child_test = format!(
        "{}::crash_child",
        module_path!()
            .split_once("::")
            .map_or(module_path!(), |(_, path)| path)
    );
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x00c0_ffee_2026);
    let mut applied: u64 = 0;
    let mut torn_writes = 0; // kills that landed after a write but before its ack
    let mut temp_left = 0; // kills that left a half-written temp file behind
    let mut paused_kills = 0; // kills inside a save, at a step the child reported
    let mut paused_steps = BTreeSet::new();
    let mut copies_checked = 0; // kills after which a copy existed (and equalled the file)
    for kill in 0..KILLS {
        let wait_for = rng.next() % MAX_ACKS_BEFORE_KILL;
        // Every other child stops inside a save: after `wait_for` acknowledged operations, at
        // a pseudo-random step of the next save.
        let pause_at =
            (kill % 2 == 1).then(|| wait_for * STEPS_PER_SAVE + rng.next() % STEPS_PER_SAVE);
        let mut command = Command::new(&exe);
        if let Some(at) = pause_at {
            command.env(CHILD_PAUSE_ENV, at.to_string());
        }
        let mut child = command
            .args([
                child_test.as_str(),
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_DIR_ENV, dir.path())
            .env(CHILD_START_ENV, applied.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut acked = 0;
        // The test harness may print `test …::crash_child ... ` before the first ack on a line.
        let parse_ack = |line: &str| {
            let (_, n) = line.split_once(ACK)?;
            n.trim().parse::<u64>().ok()
        };
        let mut paused = None;
        while acked < wait_for || (pause_at.is_some() && paused.is_none()) {
            match lines.next() {
                Some(Ok(line)) => {
                    if let Some(n) = parse_ack(&line) {
                        assert_eq!(n, applied + acked, "acks arrive in order");
                        acked += 1;
                    }
                    if let Some((_, step)) = line.split_once(PAUSED) {
                        paused = Some(step.trim().to_owned());
                    }
                }
                _ => panic!("kill {kill}: the child ended early after {acked} acks"),
            }
        }
        if let Some(step) = paused {
            assert_eq!(
                acked, wait_for,
                "kill {kill}: paused inside the expected save"
            );
            // The paused child holds the store: this process cannot open it.
            let refused = support::builder()
                .auth(Auth::user_approval().store_dir(dir.path()))
                .build()
                .expect_err("the child holds the store")
                .to_string();
            assert!(refused.contains("another process holds"), "{refused}");
            paused_kills += 1;
            paused_steps.insert(step);
        }
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        assert!(
            !status.success(),
            "kill {kill}: the child was killed, not finished"
        );
        // Acks the child printed before it died but we had not read yet.
        for line in lines.map_while(Result::ok) {
            if let Some(n) = parse_ack(&line) {
                assert_eq!(n, applied + acked);
                acked += 1;
            }
        }

        // The file, read directly: valid JSON, version 2, exactly one of the possible states.
        // (The copy is written after the file, so it never exists without it.)
        let path = dir.path().join(STORE_FILE_NAME);
        let copy = dir.path().join(format!("{STORE_FILE_NAME}.last-good"));
        assert!(
            path.exists() || !copy.exists(),
            "kill {kill}: a copy without its file"
        );
        let found = match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str::<Value>(&text)
                .unwrap_or_else(|e| panic!("kill {kill}: store is not JSON ({e}): {text:?}")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                json!({"version": 2, "grants": [], "denials": []})
            }
            Err(e) => panic!("kill {kill}: {e}"),
        };
        assert_eq!(found["version"], 2, "kill {kill}");
        let state = (
            found["grants"].as_array().unwrap().clone(),
            found["denials"].as_array().unwrap().clone(),
        );
        // The copy, when there is one, holds what the file holds: never a state whose file did
        // not commit, never an older one.
        if let Ok(text) = std::fs::read_to_string(&copy) {
            let held: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(
                (&held["grants"], &held["denials"]),
                (&found["grants"], &found["denials"]),
                "kill {kill}: the copy differs from the file"
            );
            copies_checked += 1;
        }
        let acknowledged = applied + acked;
        if state == expected_after(acknowledged) {
            applied = acknowledged;
        } else if state == expected_after(acknowledged + 1) {
            applied = acknowledged + 1;
            torn_writes += 1;
        } else {
            panic!(
                "kill {kill}: the store matches neither the state after op {acknowledged} nor the next:\n{found:#}"
            );
        }

        if std::fs::read_dir(dir.path())
            .unwrap()
            .any(|e| e.unwrap().file_name().to_string_lossy().contains(".tmp-"))
        {
            temp_left += 1;
        }

        // And through the SDK: it loads without being treated as corrupt, and behaves.
        let reopened = open(dir.path());
        assert_eq!(
            reopened.authorizer().grants().len(),
            state.0.len(),
            "kill {kill}"
        );
        if let Some(last) = (0..applied)
            .rev()
            .find(|i| op(*i) == Op::Approve && op(i + 1) != Op::Revoke)
        {
            assert!(
                call(&reopened, &caller(last), "read_notes").is_success(),
                "kill {kill}"
            );
        }
        let names: BTreeSet<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            names.iter().all(|n| !n.contains(".corrupt-")),
            "kill {kill}: the store was found corrupt: {names:?}"
        );
    }
    eprintln!(
        "{KILLS} kills ({paused_kills} inside a save, at {paused_steps:?}), {applied} operations applied, {temp_left} left a temp file, {torn_writes} landed between a rename and its ack, {copies_checked} left a copy equal to the file, {:?}",
        started.elapsed()
    );
    assert!(applied > KILLS as u64 / 2, "the children made progress");
    // The kills did land inside the write window, at every kind of step.
    assert_eq!(paused_kills, KILLS / 2);
    assert_eq!(
        paused_steps,
        ["dir-fsync", "fsync", "open", "rename", "write"]
            .map(String::from)
            .into()
    );
    assert!(temp_left > 0, "some kills left a temp file mid-write");
    assert!(torn_writes > 0, "some kills landed after a rename");
    assert!(copies_checked > 0, "some kills left a copy to compare");
}
