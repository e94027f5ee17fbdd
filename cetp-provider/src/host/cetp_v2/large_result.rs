//! Large results (the optional capability `large_results`): a result over the inline limit is
//! written once, by Rust, to a new file of the app's cache directory (mode `0600`), with its
//! size and SHA-256. The reply names the file to the template, which opens it read-only as the
//! `result_fd` `ParcelFileDescriptor` and unlinks it at once, so the descriptor is the only way
//! to the bytes and nothing is copied on the Java side. Until the template takes it over
//! ([`ResultFile::hand_over`]) the file is this value's: dropping it (an error reply, a failed
//! JNI crossing) removes the file. A process killed between the write and the template's open
//! leaves a file named with its process id, which the next process removes ([`sweep`]).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};

use sha2::{Digest, Sha256};

/// The directory under the cache directory that holds large results on their way out.
pub(crate) const RESULTS_DIR: &str = "cetp-results";
/// What every result file's name ends with.
const SUFFIX: &str = ".json";

/// The file still belongs to this value (dropping it removes the file).
const OWNED: u8 = 0;
/// The template took it over: it opens and unlinks the file.
const HANDED_OVER: u8 = 1;
/// A test agent opened it and unlinked it ([`ResultFile::open_once`]).
const TAKEN: u8 = 2;

/// One large result on its way to the agent: the file, its size and digest.
#[derive(Debug)]
pub struct ResultFile {
    path: String,
    size: u64,
    sha256: String,
    state: AtomicU8,
}

impl PartialEq for ResultFile {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
    }
}

impl Eq for ResultFile {}

impl ResultFile {
    /// Writes `json` to a new file of `dir` (created if needed), closing the file before it
    /// returns, whatever happens.
    ///
    /// # Errors
    /// The directory or the file could not be made or written (the partial file is removed).
    pub(crate) fn write(dir: &Path, json: &str) -> io::Result<Self> {
        fs::create_dir_all(dir)?;
        let mut nonce = [0u8; 12];
        getrandom::fill(&mut nonce).map_err(|e| io::Error::other(e.to_string()))?;
        let name: String = nonce.iter().map(|b| format!("{b:02x}")).collect();
        let path = dir.join(format!("{}-{name}{SUFFIX}", std::process::id()));
        let text = path
            .to_str()
            .ok_or_else(|| io::Error::other("the cache directory's path is not UTF-8"))?
            .to_owned();
        let file = ResultFile {
            path: text,
            size: json.len() as u64,
            sha256: Sha256::digest(json.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
            state: AtomicU8::new(OWNED),
        };
        // From here on, dropping `file` removes whatever was created.
        let mut out = create_private(&path)?;
        out.write_all(json.as_bytes())?;
        drop(out);
        Ok(file)
    }

    /// The file's path, which the template opens read-only and unlinks.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// `size_bytes`: the bytes of the result's JSON text.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// `sha256`: the digest of those bytes, 64 lowercase hex digits.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// The template now owns the file (it opens it read-only and unlinks it): dropping this
    /// value leaves it alone.
    pub(crate) fn hand_over(&self) {
        let _ =
            self.state
                .compare_exchange(OWNED, HANDED_OVER, Ordering::AcqRel, Ordering::Acquire);
    }

    /// Opens the file read-only and unlinks it, as the template does: the descriptor is then
    /// the only way to the bytes. `None` once it was opened or handed over: a result is read
    /// once.
    ///
    /// # Errors
    /// The file could not be opened.
    pub fn open_once(&self) -> Option<io::Result<File>> {
        self.state
            .compare_exchange(OWNED, TAKEN, Ordering::AcqRel, Ordering::Acquire)
            .ok()?;
        let opened = File::open(&self.path);
        let _ = fs::remove_file(&self.path);
        Some(opened)
    }
}

impl Drop for ResultFile {
    fn drop(&mut self) {
        if *self.state.get_mut() == OWNED {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// A new file only this app's user may read or write.
fn create_private(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// Removes the result files of other processes from `dir`: a process killed between writing a
/// result and the template's open left them. Files of this process are left alone.
pub(crate) fn sweep(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let own = format!("{}-", std::process::id());
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.ends_with(SUFFIX) && !name.starts_with(&own) && is_result_name(name) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// `<digits>-<hex>.json`, the names [`ResultFile::write`] gives.
fn is_result_name(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(SUFFIX) else {
        return false;
    };
    let Some((pid, nonce)) = stem.split_once('-') else {
        return false;
    };
    !pid.is_empty()
        && pid.bytes().all(|b| b.is_ascii_digit())
        && nonce.len() == 24
        && nonce.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Where a provider without an app (a desktop test) keeps its large results: a directory of
/// the system's temporary directory, named for this user.
pub(crate) fn default_dir() -> PathBuf {
    #[cfg(unix)]
    // SAFETY: geteuid has no preconditions and cannot fail.
    let user = unsafe { libc::geteuid() };
    #[cfg(not(unix))]
    let user = 0;
    std::env::temp_dir().join(format!("{RESULTS_DIR}-{user}"))
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn a_result_file_has_the_bytes_their_size_and_digest_and_is_read_once() {
        let dir = tempfile::tempdir().unwrap();
        let file = ResultFile::write(dir.path(), "\"abc\"").unwrap();
        assert_eq!(file.size(), 5);
        // SHA-256 of `"abc"` with its quotes.
        assert_eq!(
            file.sha256(),
            "6cc43f858fbb763301637b5af970e2a46b46f461f27e5a0f41e009c59b827b25"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(file.path()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "only the app may read it");
        }
        let mut text = String::new();
        file.open_once()
            .unwrap()
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "\"abc\"");
        assert!(!Path::new(file.path()).exists(), "unlinked once opened");
        assert!(file.open_once().is_none(), "read once");
    }

    #[test]
    fn a_result_file_nobody_took_is_removed_and_one_handed_over_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let dropped = ResultFile::write(dir.path(), "[]").unwrap();
        let path = dropped.path().to_owned();
        drop(dropped);
        assert!(!Path::new(&path).exists());
        let handed = ResultFile::write(dir.path(), "[]").unwrap();
        let path = handed.path().to_owned();
        handed.hand_over();
        drop(handed);
        assert!(Path::new(&path).exists(), "the template unlinks it");
    }

    #[test]
    fn the_sweep_removes_only_other_processes_result_files() {
        let dir = tempfile::tempdir().unwrap();
        let mine = ResultFile::write(dir.path(), "1").unwrap();
        let stale = dir.path().join("1-0123456789abcdef01234567.json");
        let other = dir.path().join("notes.json");
        fs::write(&stale, "1").unwrap();
        fs::write(&other, "1").unwrap();
        sweep(dir.path());
        assert!(Path::new(mine.path()).exists());
        assert!(!stale.exists());
        assert!(other.exists(), "not a name the SDK gives");
    }
}
