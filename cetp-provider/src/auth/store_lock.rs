//! The grant store's lock against other processes: a POSIX record lock (`fcntl(F_SETLK)`) on
//! the whole lock file, which belongs to the process that took it.
//!
//! Why not `flock(2)`: a `flock` lock belongs to the open file description, which every child
//! process shares from `fork` until `exec`. A process that starts another one (the app, a
//! library it uses, a test runner) therefore keeps the lock alive in that child for a moment,
//! and a store dropped and opened again in that moment found its own lock "held by another
//! process". A record lock is never inherited by a child, and is released when the process
//! that holds it closes the file or dies (also on `SIGKILL`).
//!
//! Record locks have one hazard of their own: closing *any* descriptor of the file in the
//! process releases the lock. So this process opens a lock file only when it holds no lock on
//! it: the files locked here are kept by identity (device and inode) in [`HELD`], and a second
//! lock on one of them fails at once without opening it. One store per directory per process
//! is the store's own rule (its registry of open stores); this table only keeps the lock sound
//! when a directory is reached by two paths, or while a store is being dropped.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

/// The error kind of a lock file this process already holds (through another path, or while
/// the store that held it is being dropped).
pub(crate) const HELD_HERE: io::ErrorKind = io::ErrorKind::ResourceBusy;

/// The lock files this process holds, by (device, inode).
#[cfg(unix)]
static HELD: Mutex<Vec<(u64, u64)>> = Mutex::new(Vec::new());

/// A held lock: the open lock file. Dropping it closes the file (which releases the lock),
/// then forgets it in [`HELD`], both under that table's lock.
#[derive(Debug)]
pub(crate) struct StoreLock {
    file: Option<File>,
    #[cfg(unix)]
    id: (u64, u64),
}

fn open(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
}

#[cfg(unix)]
fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(unix)]
fn held_here(path: &Path) -> io::Error {
    io::Error::new(
        HELD_HERE,
        format!(
            "this process already holds `{}` (its directory reached by another path?)",
            path.display()
        ),
    )
}

impl StoreLock {
    /// Locks `path` (created if missing) for as long as the result lives; fails at once with
    /// [`io::ErrorKind::WouldBlock`] when another process holds it, or [`HELD_HERE`] when this
    /// one does.
    #[cfg(unix)]
    pub(crate) fn acquire(path: &Path) -> io::Result<StoreLock> {
        let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
        // Checked before opening: opening and closing a file this process holds a record lock
        // on would release that lock.
        if let Ok(meta) = std::fs::metadata(path) {
            if held.contains(&identity(&meta)) {
                return Err(held_here(path));
            }
        }
        let file = open(path)?;
        let id = identity(&file.metadata()?);
        if held.contains(&id) {
            // The path was replaced by a held lock file between the check and the open. Closing
            // this descriptor would release that lock; keeping it open costs one descriptor.
            std::mem::forget(file);
            return Err(held_here(path));
        }
        lock_whole_file(&file)?;
        held.push(id);
        Ok(StoreLock {
            file: Some(file),
            id,
        })
    }

    /// No advisory lock off Unix; the store's registry still keeps one store per directory.
    #[cfg(not(unix))]
    pub(crate) fn acquire(path: &Path) -> io::Result<StoreLock> {
        Ok(StoreLock {
            file: Some(open(path)?),
        })
    }
}

impl Drop for StoreLock {
    fn drop(&mut self) {
        #[cfg(unix)]
        {
            let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
            drop(self.file.take());
            held.retain(|id| *id != self.id);
        }
        #[cfg(not(unix))]
        drop(self.file.take());
    }
}

/// `fcntl(F_SETLK)` of a write lock over the whole file, without waiting.
#[cfg(unix)]
fn lock_whole_file(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: an all-zero `flock` is a valid value of this plain C struct.
    let mut range: libc::flock = unsafe { std::mem::zeroed() };
    range.l_type = libc::F_WRLCK as _;
    range.l_whence = libc::SEEK_SET as _;
    // l_start = 0 and l_len = 0: from the first byte to the end, however long the file grows.
    // SAFETY: `fcntl(F_SETLK)` reads `range`, which lives across the call, and the descriptor,
    // which `file` keeps open for the call.
    let rc = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLK, &raw const range) };
    if rc == 0 {
        return Ok(());
    }
    let err = io::Error::last_os_error();
    // POSIX lets a conflicting lock answer either EACCES or EAGAIN.
    match err.raw_os_error() {
        Some(libc::EACCES | libc::EAGAIN) => Err(io::Error::from(io::ErrorKind::WouldBlock)),
        _ => Err(err),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_file_is_refused_here_by_any_path_and_free_again_once_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.lock");
        let first = StoreLock::acquire(&path).unwrap();
        let again = StoreLock::acquire(&path).unwrap_err();
        assert_eq!(again.kind(), HELD_HERE, "{again}");
        let alias = dir.path().join("alias.lock");
        std::fs::hard_link(&path, &alias).unwrap();
        assert_eq!(StoreLock::acquire(&alias).unwrap_err().kind(), HELD_HERE);
        drop(first);
        let _second = StoreLock::acquire(&alias).unwrap();
    }
}
