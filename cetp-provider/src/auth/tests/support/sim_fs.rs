//! A simulated file system for the grant store, in the style of SQLite's test VFS: it can fail
//! any step with an errno, and "lose power", dropping everything not yet made durable.
//!
//! Durability follows POSIX: a file's content is durable once the file is fsynced; a name
//! (created, renamed or removed) is durable once its directory is fsynced, and an fsync of one
//! directory makes only that directory's names durable.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use cetp_provider::auth::{LockGuard, StoreFile, StoreFs};

/// The steps a save is made of, where a fault can be injected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Creating the temp file.
    Open,
    /// Writing it.
    Write,
    /// `fsync` of the file.
    FileSync,
    /// Renaming it into place.
    Rename,
    /// `fsync` of the directory.
    DirSync,
    /// Removing a name.
    Remove,
}

/// Fail every step from call number `from` on (`times` of them, or all for `None`).
#[derive(Debug, Clone, Copy)]
pub struct Fault {
    pub from: usize,
    pub errno: i32,
    pub times: Option<usize>,
}

/// Fail every step of kind `step` on a file named `name` (the target of a rename, the
/// removed name, the created file), in directory `dir` or any, until the rule is cleared.
#[derive(Debug, Clone)]
pub struct Rule {
    pub step: Step,
    pub dir: Option<PathBuf>,
    pub name: String,
    pub errno: i32,
}

#[derive(Debug, Default)]
struct Inode {
    data: Vec<u8>,
    durable: Vec<u8>,
}

#[derive(Debug, Default)]
struct Sim {
    inodes: Vec<Inode>,
    names: BTreeMap<PathBuf, usize>,
    durable_names: BTreeMap<PathBuf, usize>,
    steps: Vec<Step>,
    fault: Option<Fault>,
    rules: Vec<Rule>,
    injected: usize,
    locked: BTreeSet<PathBuf>,
}

impl Sim {
    fn step(&mut self, step: Step) -> io::Result<()> {
        self.step_on(step, None)
    }

    fn step_on(&mut self, step: Step, path: Option<&Path>) -> io::Result<()> {
        let index = self.steps.len();
        self.steps.push(step);
        let name = path.and_then(Path::file_name);
        let dir = path.and_then(Path::parent);
        if let Some(rule) = self.rules.iter().find(|r| {
            r.step == step
                && name.is_some_and(|n| *n == *r.name)
                && r.dir.as_deref().is_none_or(|d| Some(d) == dir)
        }) {
            self.injected += 1;
            return Err(io::Error::from_raw_os_error(rule.errno));
        }
        if let Some(fault) = &mut self.fault {
            if index >= fault.from && fault.times != Some(0) {
                if let Some(n) = &mut fault.times {
                    *n -= 1;
                }
                self.injected += 1;
                return Err(io::Error::from_raw_os_error(fault.errno));
            }
        }
        Ok(())
    }
}

/// The simulated file system; clones share one disk.
#[derive(Debug, Clone, Default)]
pub struct SimFs(Arc<Mutex<Sim>>);

impl SimFs {
    pub fn new() -> Self {
        SimFs::default()
    }

    fn sim(&self) -> MutexGuard<'_, Sim> {
        self.0.lock().unwrap()
    }

    /// How many fault-able steps have run so far.
    pub fn steps(&self) -> usize {
        self.sim().steps.len()
    }

    /// The kinds of the steps run so far.
    pub fn step_kinds(&self) -> Vec<Step> {
        self.sim().steps.clone()
    }

    /// How many faults were injected so far.
    pub fn injected(&self) -> usize {
        self.sim().injected
    }

    pub fn set_fault(&self, fault: Option<Fault>) {
        self.sim().fault = fault;
    }

    /// Adds a rule: every `step` on a file named `name` fails with `errno` from now on.
    pub fn fail(&self, step: Step, name: &str, errno: i32) {
        self.sim().rules.push(Rule {
            step,
            dir: None,
            name: name.to_owned(),
            errno,
        });
    }

    /// Adds a rule: every `step` on the file `dir/name` fails with `errno` from now on.
    pub fn fail_in(&self, step: Step, dir: &Path, name: &str, errno: i32) {
        self.sim().rules.push(Rule {
            step,
            dir: Some(dir.to_owned()),
            name: name.to_owned(),
            errno,
        });
    }

    /// Removes every rule.
    pub fn clear_rules(&self) {
        self.sim().rules.clear();
    }

    /// Creates `path` with `bytes`, durably (content and name), as a file left by an
    /// earlier run. No step is counted.
    pub fn put(&self, path: &Path, bytes: &[u8]) {
        let mut sim = self.sim();
        sim.inodes.push(Inode {
            data: bytes.to_vec(),
            durable: bytes.to_vec(),
        });
        let inode = sim.inodes.len() - 1;
        sim.names.insert(path.to_owned(), inode);
        sim.durable_names.insert(path.to_owned(), inode);
    }

    /// The names now visible under `dir` (directly), sorted.
    pub fn names_in(&self, dir: &Path) -> Vec<String> {
        self.sim()
            .names
            .keys()
            .filter(|p| p.parent() == Some(dir))
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect()
    }

    /// The names that would survive a power loss now, under `dir` (directly), sorted.
    pub fn durable_names_in(&self, dir: &Path) -> Vec<String> {
        self.sim()
            .durable_names
            .keys()
            .filter(|p| p.parent() == Some(dir))
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect()
    }

    /// The content of `path` as a reader would see it now (before any power loss).
    pub fn read_now(&self, path: &Path) -> Option<Vec<u8>> {
        let sim = self.sim();
        sim.names.get(path).map(|&i| sim.inodes[i].data.clone())
    }

    /// The names now visible.
    pub fn names(&self) -> Vec<PathBuf> {
        self.sim().names.keys().cloned().collect()
    }

    /// Power loss: every name and byte not made durable is gone.
    pub fn lose_power(&self) {
        let mut sim = self.sim();
        sim.names = sim.durable_names.clone();
        for inode in &mut sim.inodes {
            inode.data = inode.durable.clone();
        }
        sim.locked.clear();
    }
}

struct SimFile {
    fs: SimFs,
    inode: usize,
}

impl StoreFile for SimFile {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        let mut sim = self.fs.sim();
        sim.step(Step::Write)?;
        sim.inodes[self.inode].data.extend_from_slice(bytes);
        Ok(())
    }

    fn sync(&mut self) -> io::Result<()> {
        let mut sim = self.fs.sim();
        sim.step(Step::FileSync)?;
        let inode = &mut sim.inodes[self.inode];
        inode.durable = inode.data.clone();
        Ok(())
    }
}

struct SimLock(SimFs, PathBuf);

impl Drop for SimLock {
    fn drop(&mut self) {
        self.0.sim().locked.remove(&self.1);
    }
}

impl StoreFs for SimFs {
    fn create_dir_all(&self, _dir: &Path) -> io::Result<()> {
        Ok(())
    }

    fn lock(&self, path: &Path) -> io::Result<LockGuard> {
        let mut sim = self.sim();
        if sim.locked.contains(path) {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        sim.locked.insert(path.to_owned());
        Ok(Box::new(SimLock(self.clone(), path.to_owned())))
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.read_now(path)
            .ok_or_else(|| io::ErrorKind::NotFound.into())
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<OsString>> {
        Ok(self
            .sim()
            .names
            .keys()
            .filter(|p| p.parent() == Some(dir))
            .filter_map(|p| p.file_name().map(ToOwned::to_owned))
            .collect())
    }

    fn create_new(&self, path: &Path) -> io::Result<Box<dyn StoreFile>> {
        let mut sim = self.sim();
        sim.step_on(Step::Open, Some(path))?;
        if sim.names.contains_key(path) {
            return Err(io::ErrorKind::AlreadyExists.into());
        }
        sim.inodes.push(Inode::default());
        let inode = sim.inodes.len() - 1;
        sim.names.insert(path.to_owned(), inode);
        Ok(Box::new(SimFile {
            fs: self.clone(),
            inode,
        }))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut sim = self.sim();
        sim.step_on(Step::Rename, Some(to))?;
        let inode = sim
            .names
            .remove(from)
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
        sim.names.insert(to.to_owned(), inode);
        Ok(())
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        let mut sim = self.sim();
        if !sim.names.contains_key(path) {
            return Err(io::ErrorKind::NotFound.into());
        }
        sim.step_on(Step::Remove, Some(path))?;
        sim.names.remove(path);
        Ok(())
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        let mut sim = self.sim();
        sim.step_on(Step::DirSync, Some(dir))?;
        // Only this directory's entries become durable.
        let now: Vec<(PathBuf, usize)> = sim
            .names
            .iter()
            .filter(|(p, _)| p.parent() == Some(dir))
            .map(|(p, i)| (p.clone(), *i))
            .collect();
        sim.durable_names.retain(|p, _| p.parent() != Some(dir));
        sim.durable_names.extend(now);
        Ok(())
    }
}
