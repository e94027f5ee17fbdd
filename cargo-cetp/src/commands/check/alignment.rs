//! The 16 KB page check of `cargo cetp check`: every `LOAD` segment of every native library the
//! app ships must be aligned for 16 KB pages.
//!
//! Android 15 runs on devices whose kernel uses 16 KB pages, and Google Play requires apps that
//! target Android 15 or later to ship 64-bit native libraries that load there. The dynamic
//! loader maps each `PT_LOAD` segment at an address that is a multiple of the page size, which
//! it can only do when the segment's `p_align` is at least that page size (and its file offset
//! and address agree modulo `p_align`). A library linked for 4 KB pages fails to load on such a
//! device. NDK r28 and newer link 16 KB-aligned by default; older ones need
//! `-Wl,-z,max-page-size=16384`.
//!
//! The reader below reads the few ELF header fields this takes (identification, machine, the
//! program header table) from both ELF classes and byte orders, bounds-checked: no ELF crate is
//! needed for six fields.

use std::path::{Path, PathBuf};

use crate::android_build::app::AppCrate;
use crate::commands::check::report::Finding;

/// The page size Android's 16 KB devices use, and the least `p_align` a `LOAD` segment may have.
pub(crate) const PAGE_16K: u64 = 16 * 1024;

/// The fix printed with every alignment error.
pub(crate) const FIX: &str = "link with NDK r28 or newer, which aligns for 16 KB pages by default (the \
                       Android template pins its ndkVersion), or pass `-C \
                       link-arg=-Wl,-z,max-page-size=16384` to rustc for the 64-bit Android \
                       targets (the template's cargoNdk task does; see android-template/README.md, \
                       \"16 KB pages\"), then rebuild";

/// The Android ABIs, the Rust targets that build them, and their ELF class and machine.
pub(crate) const ABIS: &[Abi] = &[
    Abi {
        name: "arm64-v8a",
        triple: "aarch64-linux-android",
        bits: 64,
        machine: EM_AARCH64,
    },
    Abi {
        name: "x86_64",
        triple: "x86_64-linux-android",
        bits: 64,
        machine: EM_X86_64,
    },
    Abi {
        name: "armeabi-v7a",
        triple: "armv7-linux-androideabi",
        bits: 32,
        machine: EM_ARM,
    },
    Abi {
        name: "x86",
        triple: "i686-linux-android",
        bits: 32,
        machine: EM_386,
    },
];

const EM_386: u16 = 3;
const EM_ARM: u16 = 40;
const EM_X86_64: u16 = 62;
const EM_AARCH64: u16 = 183;
const PT_LOAD: u32 = 1;

/// An Android ABI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Abi {
    /// The ABI's directory name in an APK (`arm64-v8a`).
    pub name: &'static str,
    /// The Rust target that builds it (`aarch64-linux-android`).
    pub triple: &'static str,
    /// 32 or 64.
    pub bits: u8,
    /// The ELF `e_machine` of its libraries.
    pub machine: u16,
}

impl Abi {
    /// The ABI named `name` (an APK directory name or a Rust target).
    pub(crate) fn named(name: &str) -> Option<Abi> {
        ABIS.iter()
            .copied()
            .find(|abi| abi.name == name || abi.triple == name)
    }
}

/// The fields of an ELF file the check reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Elf {
    /// 32 or 64 (`EI_CLASS`).
    pub bits: u8,
    /// `e_machine`.
    pub machine: u16,
    /// The `PT_LOAD` program headers.
    pub loads: Vec<Load>,
}

/// One `PT_LOAD` program header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Load {
    /// `p_offset`.
    pub offset: u64,
    /// `p_vaddr`.
    pub vaddr: u64,
    /// `p_align`.
    pub align: u64,
}

impl Elf {
    /// Reads the ELF header and program headers of `bytes`.
    ///
    /// # Errors
    /// What is wrong: not ELF, an unknown class or byte order, a table outside the file.
    pub(crate) fn parse(bytes: &[u8]) -> Result<Elf, String> {
        if bytes.get(..4) != Some(b"\x7fELF".as_slice()) {
            return Err("not an ELF file".into());
        }
        let bits = match bytes.get(4) {
            Some(1) => 32,
            Some(2) => 64,
            other => return Err(format!("unknown ELF class {other:?}")),
        };
        let little = match bytes.get(5) {
            Some(1) => true,
            Some(2) => false,
            other => return Err(format!("unknown ELF byte order {other:?}")),
        };
        let r = Reader { bytes, little };
        let machine = r.u16(18)?;
        let (phoff, phentsize, phnum) = if bits == 64 {
            (r.u64(32)?, r.u16(54)?, r.u16(56)?)
        } else {
            (u64::from(r.u32(28)?), r.u16(42)?, r.u16(44)?)
        };
        // PN_XNUM: the count lives in the first section header; no library needs 65535 headers.
        if phnum == 0xffff {
            return Err("more program headers than the ELF header can count".into());
        }
        let least = if bits == 64 { 56 } else { 32 };
        if phnum > 0 && usize::from(phentsize) < least {
            return Err(format!(
                "program headers of {phentsize} bytes (at least {least})"
            ));
        }
        let mut loads = Vec::new();
        for i in 0..u64::from(phnum) {
            let at = phoff
                .checked_add(i * u64::from(phentsize))
                .and_then(|at| usize::try_from(at).ok())
                .ok_or("program header table beyond the file")?;
            if r.u32(at)? != PT_LOAD {
                continue;
            }
            let load = if bits == 64 {
                Load {
                    offset: r.u64(at + 8)?,
                    vaddr: r.u64(at + 16)?,
                    align: r.u64(at + 48)?,
                }
            } else {
                Load {
                    offset: u64::from(r.u32(at + 4)?),
                    vaddr: u64::from(r.u32(at + 8)?),
                    align: u64::from(r.u32(at + 28)?),
                }
            };
            loads.push(load);
        }
        Ok(Elf {
            bits,
            machine,
            loads,
        })
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    little: bool,
}

/// `fn $ty(&self, at)`: the unsigned integer of that type at byte `at`, in the file's byte order.
macro_rules! read_uint {
    ($ty:ident) => {
        fn $ty(&self, at: usize) -> Result<$ty, String> {
            let bytes = self.take(at)?;
            Ok(if self.little {
                $ty::from_le_bytes(bytes)
            } else {
                $ty::from_be_bytes(bytes)
            })
        }
    };
}

impl Reader<'_> {
    fn take<const N: usize>(&self, at: usize) -> Result<[u8; N], String> {
        at.checked_add(N)
            .and_then(|end| self.bytes.get(at..end))
            .and_then(|s| s.try_into().ok())
            .ok_or_else(|| format!("truncated ELF file (needs byte {})", at.saturating_add(N)))
    }

    read_uint!(u16);
    read_uint!(u32);
    read_uint!(u64);
}

/// A native library to check, and the ABI its location says it is for (if it says).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Library {
    /// The `.so` file.
    pub path: PathBuf,
    /// The ABI of the directory it sits in (`jniLibs/arm64-v8a/`, `target/aarch64-linux-android/`).
    pub abi: Option<Abi>,
}

impl Library {
    /// `path`, with the ABI its directories name.
    pub(crate) fn at(path: &Path) -> Library {
        let abi = path
            .ancestors()
            .skip(1)
            .take(3)
            .filter_map(|dir| dir.file_name()?.to_str())
            .find_map(Abi::named);
        Library {
            path: path.to_path_buf(),
            abi,
        }
    }
}

/// What the check found about one library: a summary line, and errors with the fix.
#[derive(Debug, Clone)]
pub(crate) struct Checked {
    /// `arm64-v8a libnotes.so: 64-bit AArch64, 4 LOAD segments aligned to 16 KB`.
    pub summary: String,
    /// Its errors.
    pub findings: Vec<Finding>,
}

/// Checks one library: an ELF file of the class and machine of its ABI, whose `LOAD` segments
/// are all aligned to at least 16 KB (64-bit libraries; 32-bit ABIs run on 4 KB pages only)
/// with offsets and addresses congruent modulo their alignment.
pub(crate) fn check_library(library: &Library) -> Checked {
    let name = library.path.display().to_string();
    let bytes = match std::fs::read(&library.path) {
        Ok(bytes) => bytes,
        Err(e) => {
            return Checked {
                summary: format!("{name}: unreadable"),
                findings: vec![Finding::error(format!("{name}: {e}"), "")],
            };
        }
    };
    let elf = match Elf::parse(&bytes) {
        Ok(elf) => elf,
        Err(why) => {
            return Checked {
                summary: format!("{name}: not a library"),
                findings: vec![Finding::error(
                    format!("{name}: {why}"),
                    "ship only shared libraries built for Android",
                )],
            };
        }
    };
    let mut findings = Vec::new();
    let abi = library.abi.or_else(|| {
        ABIS.iter()
            .copied()
            .find(|a| a.machine == elf.machine && a.bits == elf.bits)
    });
    if let Some(abi) = library.abi {
        if abi.bits != elf.bits || abi.machine != elf.machine {
            findings.push(Finding::error(
                format!(
                    "{name}: a {}-bit {} library in {}, which loads only {}-bit {} code",
                    elf.bits,
                    machine_name(elf.machine),
                    abi.name,
                    abi.bits,
                    machine_name(abi.machine)
                ),
                format!(
                    "build it for the Rust target {} (cargo ndk -t {})",
                    abi.triple, abi.name
                ),
            ));
        }
    }
    if elf.loads.is_empty() {
        findings.push(Finding::error(
            format!("{name}: no LOAD segment, nothing the loader could map"),
            "ship only shared libraries built for Android",
        ));
    }
    for (i, load) in elf.loads.iter().enumerate() {
        if load.align > 1 && !load.align.is_power_of_two() {
            findings.push(Finding::error(
                format!(
                    "{name}: LOAD segment {i} has an alignment of {}, not a power of two",
                    load.align
                ),
                "relink the library with the NDK's linker",
            ));
        } else if load.align > 1 && load.offset % load.align != load.vaddr % load.align {
            findings.push(Finding::error(
                format!(
                    "{name}: LOAD segment {i} at offset {:#x} and address {:#x} disagree modulo \
                     its alignment {:#x}: the loader refuses it",
                    load.offset, load.vaddr, load.align
                ),
                "relink the library with the NDK's linker; do not rewrite it with other tools",
            ));
        }
    }
    let least = elf.loads.iter().map(|l| l.align).min().unwrap_or(0);
    let needs_16k = elf.bits == 64;
    if needs_16k && !elf.loads.is_empty() && least < PAGE_16K {
        let short: Vec<String> = elf
            .loads
            .iter()
            .enumerate()
            .filter(|(_, l)| l.align < PAGE_16K)
            .map(|(i, l)| format!("{i} ({})", size(l.align)))
            .collect();
        findings.push(Finding::error(
            format!(
                "{name}: LOAD segment(s) {} aligned below 16 KB: it does not load on Android's \
                 16 KB page devices, and Google Play refuses it for apps targeting Android 15+",
                short.join(", ")
            ),
            FIX,
        ));
    }
    let summary = format!(
        "{}{}: {}-bit {}, {} LOAD segment(s) aligned to {}{}",
        abi.map(|a| format!("{} ", a.name)).unwrap_or_default(),
        name,
        elf.bits,
        machine_name(elf.machine),
        elf.loads.len(),
        size(least),
        if needs_16k {
            ""
        } else {
            " (a 32-bit ABI: 16 KB page devices run 64-bit code only)"
        }
    );
    Checked { summary, findings }
}

fn machine_name(machine: u16) -> String {
    match machine {
        EM_386 => "x86".into(),
        EM_ARM => "ARM".into(),
        EM_X86_64 => "x86-64".into(),
        EM_AARCH64 => "AArch64".into(),
        other => format!("machine {other}"),
    }
}

fn size(align: u64) -> String {
    if align >= 1024 && align % 1024 == 0 {
        format!("{} KB", align / 1024)
    } else {
        format!("{align} bytes")
    }
}

/// The native libraries an app's builds left where an Android build puts them:
/// - `<target>/<android triple>/<profile>/lib<name>.so`, what `cargo ndk` and `cargo build
///   --target <triple>` write;
/// - every `.so` under a directory named after an ABI in `android/build/` (the Android Gradle
///   plugin's merged and stripped native libraries), `android/src/main/jniLibs/` (prebuilt
///   libraries the app ships) and the template module's `build/rustJniLibs/` (what its
///   `cargoNdk` task writes; only the app's own library, since the template's checkout may
///   serve several apps).
pub(crate) fn app_libraries(app: &AppCrate) -> Vec<Library> {
    let mut found = Vec::new();
    let file = format!("lib{}.so", app.lib_name);
    for abi in ABIS {
        let Ok(profiles) = std::fs::read_dir(app.target_dir.join(abi.triple)) else {
            continue;
        };
        for profile in profiles.flatten() {
            let candidate = profile.path().join(&file);
            if candidate.is_file() {
                found.push(candidate);
            }
        }
    }
    // The app module `cargo cetp new` or `init` wired (`android/` beside the crate when none
    // is found, as `new` writes it).
    let android = crate::android_build::layout::Layout::find(app)
        .ok()
        .flatten()
        .map_or_else(|| app.dir.join("android"), |layout| layout.module);
    for root in [android.join("build"), android.join("src/main/jniLibs")] {
        collect_abi_libraries(&root, None, 12, &mut found);
    }
    // The template module builds the library into the Gradle build's own build directory
    // (`build/cetp/`, its build.gradle.kts), wherever Cargo keeps the module.
    if let Some(layout) = crate::android_build::layout::Layout::find(app)
        .ok()
        .flatten()
    {
        let template = layout.root.join("build/cetp/rustJniLibs");
        collect_abi_libraries(&template, Some(&file), 2, &mut found);
    }
    found.sort();
    found.dedup();
    found.iter().map(|p| Library::at(p)).collect()
}

/// Every `.so` (named `only`, if given) under `dir` whose parent directory names an ABI.
fn collect_abi_libraries(dir: &Path, only: Option<&str>, depth: u32, into: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let in_abi = dir
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| ABIS.iter().any(|a| a.name == n));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if depth > 0 {
                collect_abi_libraries(&path, only, depth - 1, into);
            }
        } else if in_abi
            && path.extension().is_some_and(|e| e == "so")
            && only.is_none_or(|name| path.file_name().is_some_and(|n| n == name))
        {
            into.push(path);
        }
    }
}

/// Checks `libraries`, printing one line each; returns the errors.
pub(crate) fn check_libraries(libraries: &[Library]) -> (Vec<String>, Vec<Finding>) {
    let mut lines = Vec::new();
    let mut findings = Vec::new();
    for library in libraries {
        let checked = check_library(library);
        lines.push(format!(
            "  {} {}",
            if checked.findings.is_empty() {
                "ok   "
            } else {
                "error"
            },
            checked.summary
        ));
        findings.extend(checked.findings);
    }
    (lines, findings)
}

/// The notes and findings `cargo cetp check` adds for the app's built native libraries.
pub(crate) fn app_findings(app: &AppCrate) -> (Vec<String>, Vec<Finding>) {
    let libraries = app_libraries(app);
    if libraries.is_empty() {
        return (
            vec![
                "16 KB pages: no Android build of the library found yet (checked after \
                 `cargo ndk`, the Gradle build, or with `cargo cetp check --lib <path>`)"
                    .to_owned(),
            ],
            Vec::new(),
        );
    }
    let (lines, findings) = check_libraries(&libraries);
    let mut notes = vec![format!(
        "16 KB pages: {} native librar{} checked",
        libraries.len(),
        if libraries.len() == 1 { "y" } else { "ies" }
    )];
    notes.extend(lines);
    (notes, findings)
}

/// `cargo cetp check --lib <path>…`: checks those libraries only; the exit code is 1 when one
/// fails.
pub(crate) fn run(paths: &[PathBuf]) -> i32 {
    let libraries: Vec<Library> = paths.iter().map(|p| Library::at(p)).collect();
    let (lines, findings) = check_libraries(&libraries);
    println!(
        "cargo cetp check: 16 KB page alignment of {} librar{}\n",
        libraries.len(),
        if libraries.len() == 1 { "y" } else { "ies" }
    );
    for line in &lines {
        println!("{line}");
    }
    if !findings.is_empty() {
        println!();
    }
    for finding in &findings {
        println!("{finding}");
    }
    println!("\ncargo cetp check: {} error(s)", findings.len());
    i32::from(!findings.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal ELF image: the header and `loads` as (offset, vaddr, align) program headers.
    fn elf(bits: u8, little: bool, machine: u16, loads: &[(u64, u64, u64)]) -> Vec<u8> {
        let (ehsize, phentsize) = if bits == 64 { (64, 56) } else { (52, 32) };
        let mut out = vec![0u8; ehsize + phentsize * loads.len()];
        out[..4].copy_from_slice(b"\x7fELF");
        out[4] = if bits == 64 { 2 } else { 1 };
        out[5] = if little { 1 } else { 2 };
        let put = |out: &mut Vec<u8>, at: usize, value: u64, width: usize| {
            let bytes = if little {
                value.to_le_bytes()[..width].to_vec()
            } else {
                value.to_be_bytes()[8 - width..].to_vec()
            };
            out[at..at + width].copy_from_slice(&bytes);
        };
        put(&mut out, 18, u64::from(machine), 2);
        if bits == 64 {
            put(&mut out, 32, ehsize as u64, 8);
            put(&mut out, 54, phentsize as u64, 2);
            put(&mut out, 56, loads.len() as u64, 2);
        } else {
            put(&mut out, 28, ehsize as u64, 4);
            put(&mut out, 42, phentsize as u64, 2);
            put(&mut out, 44, loads.len() as u64, 2);
        }
        for (i, &(offset, vaddr, align)) in loads.iter().enumerate() {
            let at = ehsize + i * phentsize;
            put(&mut out, at, u64::from(PT_LOAD), 4);
            if bits == 64 {
                put(&mut out, at + 8, offset, 8);
                put(&mut out, at + 16, vaddr, 8);
                put(&mut out, at + 48, align, 8);
            } else {
                put(&mut out, at + 4, offset, 4);
                put(&mut out, at + 8, vaddr, 4);
                put(&mut out, at + 28, align, 4);
            }
        }
        out
    }

    fn check_bytes(dir: &Path, abi: &str, bytes: &[u8]) -> Checked {
        let path = dir.join(abi).join("libapp.so");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        let library = Library::at(&path);
        assert_eq!(library.abi.map(|a| a.name), Abi::named(abi).map(|a| a.name));
        check_library(&library)
    }

    #[test]
    fn both_classes_and_byte_orders_are_read() {
        let loads = [(0, 0, 0x4000), (0x4a00, 0x8a00, 0x4000)];
        for (bits, little) in [(64, true), (64, false), (32, true), (32, false)] {
            let parsed = Elf::parse(&elf(bits, little, EM_AARCH64, &loads)).unwrap();
            assert_eq!(parsed.bits, bits);
            assert_eq!(parsed.machine, EM_AARCH64);
            let read: Vec<_> = parsed
                .loads
                .iter()
                .map(|l| (l.offset, l.vaddr, l.align))
                .collect();
            assert_eq!(read, loads, "{bits}-bit, little endian {little}");
        }
        assert!(
            Elf::parse(b"#!/bin/sh\n")
                .unwrap_err()
                .contains("not an ELF")
        );
        let mut truncated = elf(64, true, EM_AARCH64, &loads);
        truncated.truncate(100);
        assert!(Elf::parse(&truncated).unwrap_err().contains("truncated"));
    }

    #[test]
    fn a_4k_segment_in_a_64_bit_library_fails_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let ok = check_bytes(
            dir.path(),
            "arm64-v8a",
            &elf(
                64,
                true,
                EM_AARCH64,
                &[(0, 0, 0x4000), (0x5000, 0x9000, 0x4000)],
            ),
        );
        assert!(ok.findings.is_empty(), "{:?}", ok.findings);
        assert!(ok.summary.contains("aligned to 16 KB"), "{}", ok.summary);
        let bad = check_bytes(
            dir.path(),
            "x86_64",
            &elf(
                64,
                true,
                EM_X86_64,
                &[(0, 0, 0x4000), (0x5000, 0x6000, 0x1000)],
            ),
        );
        assert_eq!(bad.findings.len(), 1, "{:?}", bad.findings);
        let text = bad.findings[0].to_string();
        assert!(
            text.contains("LOAD segment(s) 1 (4 KB) aligned below 16 KB"),
            "{text}"
        );
        assert!(
            text.contains("NDK r28") && text.contains("max-page-size=16384"),
            "{text}"
        );
    }

    #[test]
    fn the_class_and_machine_must_be_the_abis() {
        let dir = tempfile::tempdir().unwrap();
        let wrong = check_bytes(
            dir.path(),
            "arm64-v8a",
            &elf(32, true, EM_ARM, &[(0, 0, 0x4000)]),
        );
        let text = wrong.findings[0].to_string();
        assert!(
            text.contains("a 32-bit ARM library in arm64-v8a, which loads only 64-bit AArch64"),
            "{text}"
        );
        // 32-bit ABIs run on 4 KB pages only: 4 KB is right there.
        let arm = check_bytes(
            dir.path(),
            "armeabi-v7a",
            &elf(32, true, EM_ARM, &[(0, 0, 0x1000)]),
        );
        assert!(arm.findings.is_empty(), "{:?}", arm.findings);
        assert!(arm.summary.contains("32-bit ABI"), "{}", arm.summary);
    }

    #[test]
    fn offsets_and_addresses_must_agree_modulo_the_alignment() {
        let dir = tempfile::tempdir().unwrap();
        let bad = check_bytes(
            dir.path(),
            "arm64-v8a",
            &elf(
                64,
                true,
                EM_AARCH64,
                &[(0, 0, 0x4000), (0x5000, 0x9800, 0x4000)],
            ),
        );
        assert_eq!(bad.findings.len(), 1, "{:?}", bad.findings);
        assert!(
            bad.findings[0]
                .problem
                .contains("disagree modulo its alignment 0x4000"),
            "{}",
            bad.findings[0]
        );
    }

    #[test]
    fn libraries_are_found_where_android_builds_put_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for path in [
            "target/aarch64-linux-android/release/libapp.so",
            "target/x86_64-linux-android/debug/libapp.so",
            "target/aarch64-linux-android/release/libother.so",
            "app/android/build/intermediates/merged_native_libs/release/out/lib/armeabi-v7a/libapp.so",
            "app/android/src/main/jniLibs/arm64-v8a/libprebuilt.so",
            "app/android/build/cetp/rustJniLibs/x86_64/libapp.so",
            "sdk/android-template/build/rustJniLibs/x86_64/libsomeone_else.so",
            "app/android/build/tmp/notes.so",
        ] {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "").unwrap();
        }
        let app = AppCrate {
            name: "app".into(),
            lib_name: "app".into(),
            crate_types: vec!["cdylib".into()],
            dir: root.join("app"),
            manifest_path: root.join("app/Cargo.toml"),
            workspace_root: root.join("app"),
            target_dir: root.join("target"),
            provider: crate::android_build::app::ProviderSource::Path(
                root.join("sdk/cetp-provider"),
            ),
            provider_dir: root.join("sdk/cetp-provider"),
            template: None,
            metadata_cetp: serde_json::Value::Null,
            android_module: None,
        };
        let found: Vec<(String, &str)> = app_libraries(&app)
            .into_iter()
            .map(|l| {
                let path = l.path.strip_prefix(root).unwrap().display().to_string();
                (path, l.abi.map_or("?", |a| a.name))
            })
            .collect();
        let expected = [
            (
                "app/android/build/cetp/rustJniLibs/x86_64/libapp.so",
                "x86_64",
            ),
            (
                "app/android/build/intermediates/merged_native_libs/release/out/lib/armeabi-v7a/libapp.so",
                "armeabi-v7a",
            ),
            (
                "app/android/src/main/jniLibs/arm64-v8a/libprebuilt.so",
                "arm64-v8a",
            ),
            (
                "target/aarch64-linux-android/release/libapp.so",
                "arm64-v8a",
            ),
            ("target/x86_64-linux-android/debug/libapp.so", "x86_64"),
        ];
        let expected: Vec<(String, &str)> = expected
            .iter()
            .map(|(p, a)| ((*p).to_owned(), *a))
            .collect();
        assert_eq!(found, expected);
    }

    /// Two real shared libraries linked here, one for 4 KB pages and one for 16 KB pages: `cargo
    /// cetp check --lib` fails on the first and passes on the second. The linker's own output
    /// (host x86-64 ELF, and AArch64 when the cross compiler is installed), so the check reads
    /// what linkers write, not only what the tests above craft.
    #[test]
    fn check_fails_on_a_4k_library_and_passes_on_a_16k_one() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("tool.c");
        std::fs::write(&source, "int cetp_answer(void) { return 42; }\n").unwrap();
        let mut compilers = vec![("cc", None)];
        if crate::android_build::bundle::on_path("aarch64-linux-gnu-gcc").is_some() {
            compilers.push(("aarch64-linux-gnu-gcc", Some("arm64-v8a")));
        }
        if crate::android_build::bundle::on_path("cc").is_none() {
            eprintln!(
                "SKIPPED check_fails_on_a_4k_library_and_passes_on_a_16k_one: no C compiler \
                 (`cc`) on PATH to link the two test libraries"
            );
            return;
        }
        for (compiler, abi) in compilers {
            let mut exits = Vec::new();
            for page in [4096, 16384] {
                let out = match abi {
                    Some(abi) => dir.path().join(format!("{page}/{abi}/libtool.so")),
                    None => dir.path().join(format!("{page}/libtool.so")),
                };
                std::fs::create_dir_all(out.parent().unwrap()).unwrap();
                let status = std::process::Command::new(compiler)
                    .args(["-shared", "-fPIC", "-nostdlib", "-o"])
                    .arg(&out)
                    .arg(&source)
                    .arg(format!("-Wl,-z,max-page-size={page}"))
                    .status()
                    .unwrap();
                assert!(status.success(), "{compiler} failed");
                let checked = check_library(&Library::at(&out));
                assert_eq!(
                    checked.findings.is_empty(),
                    page == 16384,
                    "{compiler} {page}: {} {:?}",
                    checked.summary,
                    checked.findings
                );
                let args = ["check", "--lib", out.to_str().unwrap()].map(String::from);
                exits.push(crate::run(&args).unwrap());
            }
            assert_eq!(exits, [1, 0], "{compiler}");
        }
    }
}
