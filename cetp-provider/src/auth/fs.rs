//! The grant store's file-system seam: [`StoreFs`], the handful of operations the store makes,
//! and [`OsFs`], the real file system. Tests put a fault-injecting or power-loss-simulating
//! implementation behind [`Auth::store_fs`](crate::auth::Auth::store_fs).

use std::any::Any;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::store_lock::StoreLock;

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

/// The access log's file name, in the grant store's directory.
pub const ACCESS_LOG_FILE_NAME: &str = "cetp-access-log.json";

/// A save that failed; `committed` when the new file had already been renamed into place
/// (only the directory sync failed), so the change is visible on disk.
pub(super) struct SaveFailure {
    pub(super) committed: bool,
    pub(super) error: io::Error,
}

/// Unique temp names within the process; the PID makes them unique across processes.
static NEXT_TEMP: AtomicU64 = AtomicU64::new(1);

/// Writes `bytes` to `path` atomically and durably: a uniquely named temp file in `dir`
/// (`<prefix>.tmp-<pid>-<n>`), fsync, rename over `path`, fsync `dir`. The temp file is
/// removed on failure.
pub(super) fn write_atomic(
    fs: &dyn StoreFs,
    dir: &Path,
    path: &Path,
    bytes: &[u8],
    prefix: &str,
) -> Result<(), SaveFailure> {
    let tmp = dir.join(format!(
        "{prefix}.tmp-{}-{}",
        std::process::id(),
        NEXT_TEMP.fetch_add(1, Ordering::Relaxed)
    ));
    let before_rename = (|| {
        let mut file = fs.create_new(&tmp)?;
        file.write_all(bytes)?;
        file.sync()
    })();
    if let Err(error) = before_rename.and_then(|()| fs.rename(&tmp, path)) {
        let _ = fs.remove(&tmp);
        return Err(SaveFailure {
            committed: false,
            error,
        });
    }
    fs.sync_dir(dir).map_err(|error| SaveFailure {
        committed: true,
        error,
    })
}

/// The operations the grant store performs on its directory. Every save is: [`create_new`]
/// a uniquely named temp file, [`StoreFile::write_all`], [`StoreFile::sync`], [`rename`] it
/// over the target, [`sync_dir`].
///
/// The crate's tests implement it to inject faults; production code uses [`OsFs`].
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
    /// lives; fails at once (does not wait) when another process holds it. The real file
    /// system's lock is never inherited by a child process (see `store_lock`).
    ///
    /// # Errors
    /// [`io::ErrorKind::WouldBlock`] when another process holds it,
    /// [`io::ErrorKind::ResourceBusy`] when this one does (through another path), or what the
    /// file system reports.
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
        Ok(Box::new(StoreLock::acquire(path)?))
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

/// Files kept in memory: the store of a provider given no directory (a host test that did not
/// call `ProviderBuilder::app` or `Auth::store_dir`), whose decisions last as long as it does.
#[derive(Debug, Default)]
pub(crate) struct MemFs {
    files: Arc<Mutex<BTreeMap<PathBuf, Vec<u8>>>>,
}

/// A file being written to a [`MemFs`].
struct MemFile {
    path: PathBuf,
    files: Arc<Mutex<BTreeMap<PathBuf, Vec<u8>>>>,
}

impl StoreFile for MemFile {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        let mut files = self.files.lock().unwrap_or_else(PoisonError::into_inner);
        files
            .get_mut(&self.path)
            .ok_or_else(not_found)?
            .extend_from_slice(bytes);
        Ok(())
    }

    fn sync(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl MemFs {
    fn files(&self) -> MutexGuard<'_, BTreeMap<PathBuf, Vec<u8>>> {
        self.files.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn not_found() -> io::Error {
    io::Error::from(io::ErrorKind::NotFound)
}

impl StoreFs for MemFs {
    fn create_dir_all(&self, _dir: &Path) -> io::Result<()> {
        Ok(())
    }

    fn lock(&self, _path: &Path) -> io::Result<LockGuard> {
        Ok(Box::new(()))
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.files().get(path).cloned().ok_or_else(not_found)
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<OsString>> {
        Ok(self
            .files()
            .keys()
            .filter(|path| path.parent() == Some(dir))
            .filter_map(|path| path.file_name().map(ToOwned::to_owned))
            .collect())
    }

    fn create_new(&self, path: &Path) -> io::Result<Box<dyn StoreFile>> {
        let mut files = self.files();
        if files.contains_key(path) {
            return Err(io::Error::from(io::ErrorKind::AlreadyExists));
        }
        files.insert(path.to_owned(), Vec::new());
        Ok(Box::new(MemFile {
            path: path.to_owned(),
            files: Arc::clone(&self.files),
        }))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut files = self.files();
        let bytes = files.remove(from).ok_or_else(not_found)?;
        files.insert(to.to_owned(), bytes);
        Ok(())
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        self.files().remove(path).map(drop).ok_or_else(not_found)
    }

    fn sync_dir(&self, _dir: &Path) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_files_are_written_renamed_listed_and_removed() {
        let fs = MemFs::default();
        let dir = Path::new("/memory");
        let mut file = fs.create_new(&dir.join("a.tmp")).unwrap();
        file.write_all(b"x").unwrap();
        file.write_all(b"y").unwrap();
        file.sync().unwrap();
        fs.rename(&dir.join("a.tmp"), &dir.join("a")).unwrap();
        drop(file);
        assert_eq!(fs.read(&dir.join("a")).unwrap(), b"xy");
        assert_eq!(fs.list(dir).unwrap(), ["a"]);
        assert!(fs.create_new(&dir.join("a")).is_err());
        fs.remove(&dir.join("a")).unwrap();
        assert_eq!(
            fs.read(&dir.join("a")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        assert!(
            fs.canonical_dir(dir).is_none(),
            "never shared per directory"
        );
    }
}
