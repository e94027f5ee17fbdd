//! The grant store's file-system seam: [`StoreFs`], the handful of operations the store makes,
//! and [`OsFs`], the real file system. Tests put a fault-injecting or power-loss-simulating
//! implementation behind [`Auth::store_fs`](crate::auth::Auth::store_fs).

use std::any::Any;
use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A file being written by the store (a temp file, later renamed into place).
pub trait StoreFile: Send {
    /// Writes all of `bytes` at the current position.
    ///
    /// # Errors
    /// Whatever the file system reports (`ENOSPC`, `EIO`, …).
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()>;

    /// Makes the content written so far durable (`fsync`).
    ///
    /// # Errors
    /// Whatever the file system reports.
    fn sync(&mut self) -> io::Result<()>;
}

/// Held while a store directory is locked; dropping it releases the lock.
pub type LockGuard = Box<dyn Any + Send + Sync>;

/// The operations the grant store performs on its directory. Every save is: [`create_new`]
/// a uniquely named temp file, [`StoreFile::write_all`], [`StoreFile::sync`], [`rename`] it
/// over the target, [`sync_dir`].
///
/// Implement it to inject faults; production code uses [`OsFs`].
///
/// ```
/// use std::sync::Arc;
/// use cetp_provider::auth::{Auth, OsFs};
/// let dir = tempfile::tempdir().unwrap();
/// let auth = Auth::user_approval().store_dir(dir.path()).store_fs(Arc::new(OsFs));
/// # let _ = auth;
/// ```
///
/// [`create_new`]: StoreFs::create_new
/// [`rename`]: StoreFs::rename
/// [`sync_dir`]: StoreFs::sync_dir
pub trait StoreFs: Send + Sync {
    /// Creates `dir` and its parents if missing.
    ///
    /// # Errors
    /// Whatever the file system reports.
    fn create_dir_all(&self, dir: &Path) -> io::Result<()>;

    /// Locks `path` (created if missing) against other processes for as long as the guard
    /// lives; fails at once (does not wait) when another process holds it.
    ///
    /// # Errors
    /// [`io::ErrorKind::WouldBlock`] when held elsewhere, or what the file system reports.
    fn lock(&self, path: &Path) -> io::Result<LockGuard>;

    /// Reads a whole file.
    ///
    /// # Errors
    /// [`io::ErrorKind::NotFound`] when it does not exist, or what the file system reports.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;

    /// The names of the entries of `dir`.
    ///
    /// # Errors
    /// Whatever the file system reports.
    fn list(&self, dir: &Path) -> io::Result<Vec<OsString>>;

    /// Creates `path`, which must not exist yet, for writing.
    ///
    /// # Errors
    /// Whatever the file system reports.
    fn create_new(&self, path: &Path) -> io::Result<Box<dyn StoreFile>>;

    /// Renames `from` to `to`, replacing `to` atomically.
    ///
    /// # Errors
    /// Whatever the file system reports.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;

    /// Removes a file.
    ///
    /// # Errors
    /// Whatever the file system reports.
    fn remove(&self, path: &Path) -> io::Result<()>;

    /// Makes the entries of `dir` (renames, new and removed names) durable.
    ///
    /// # Errors
    /// Whatever the file system reports.
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;

    /// The canonical form of `dir` when this is the real file system: stores on one canonical
    /// directory are shared within the process. `None` (the default) for a simulated one,
    /// whose stores are never shared.
    fn canonical_dir(&self, dir: &Path) -> Option<PathBuf> {
        let _ = dir;
        None
    }
}

/// The real file system.
#[derive(Debug, Clone, Copy, Default)]
pub struct OsFs;

impl StoreFile for File {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        Write::write_all(self, bytes)
    }

    fn sync(&mut self) -> io::Result<()> {
        self.sync_all()
    }
}

impl StoreFs for OsFs {
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        fs::create_dir_all(dir)
    }

    fn lock(&self, path: &Path) -> io::Result<LockGuard> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        lock_exclusive(&file)?;
        Ok(Box::new(file))
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        fs::read(path)
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<OsString>> {
        fs::read_dir(dir)?
            .map(|entry| entry.map(|e| e.file_name()))
            .collect()
    }

    fn create_new(&self, path: &Path) -> io::Result<Box<dyn StoreFile>> {
        let file = OpenOptions::new().write(true).create_new(true).open(path)?;
        Ok(Box::new(file))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        fs::rename(from, to)
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(path)
    }

    #[cfg(unix)]
    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        File::open(dir)?.sync_all()
    }

    #[cfg(not(unix))]
    fn sync_dir(&self, _dir: &Path) -> io::Result<()> {
        Ok(())
    }

    fn canonical_dir(&self, dir: &Path) -> Option<PathBuf> {
        fs::canonicalize(dir).ok()
    }
}

/// `flock(LOCK_EX | LOCK_NB)`: advisory, released when the file is closed (also when the
/// process dies).
#[cfg(unix)]
fn lock_exclusive(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: `flock` only reads the descriptor, which `file` keeps open for the call.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// No advisory lock off Unix; the in-process registry still keeps one store per directory.
#[cfg(not(unix))]
fn lock_exclusive(_file: &File) -> io::Result<()> {
    Ok(())
}
