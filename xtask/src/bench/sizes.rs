//! The library-size part of `cargo xtask bench`: each sample's release library, stripped, for
//! x86_64 Linux and for `aarch64-linux-android`, and where the bytes of two of them go.
//!
//! There is no NDK here, so the Android `cdylib` is linked by the toolchain's own `rust-lld`
//! (`-C linker-flavor=ld.lld`) against stand-ins for the NDK's libraries:
//!
//! - `libc`, `libm`, `libdl` and `liblog` are shared libraries on the phone, not part of the
//!   app's `.so`; empty archives stand in for them and their symbols stay dynamic imports, as
//!   they are in a real build.
//! - `libunwind` is linked *into* the `.so` by the NDK (the unwinder `panic = "unwind"` needs);
//!   GCC's unwinder for aarch64, `libgcc_eh.a` from Debian's `gcc-aarch64-linux-gnu`, stands in
//!   for it, so its code is counted.
//! - The notes sample's bundled SQLite (C) is compiled by `aarch64-linux-gnu-gcc` (GCC 12, glibc
//!   headers) instead of the NDK's clang against bionic: the same code for the same CPU from
//!   another compiler, at the optimization level of the Cargo profile.
//!
//! Both builds use the workspace's `[profile.release]`, stripped afterwards with
//! `strip --strip-all` (`aarch64-linux-gnu-strip` for Android), as an app's packaging strips
//! them. The per-crate breakdown reads the symbol table of the unstripped x86_64 build
//! (`nm --size-sort -S` with demangling).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::host_build;
use crate::util::{self, cargo_target_dir};

/// The samples whose release library sizes are reported.
const SAMPLES: &[&str] = &["samples/minimal", "samples/notes", "samples/expenses"];
/// The samples whose bytes are broken down by crate.
const BROKEN_DOWN: &[&str] = &["samples/minimal", "samples/notes"];
/// How many crates the breakdown names before "everything else".
const TOP_CRATES: usize = 12;

const ANDROID: &str = "aarch64-linux-android";
/// Debian's cross compiler for aarch64: `aarch64-linux-gnu-gcc`, its binutils, `libgcc_eh.a`.
const CROSS_PACKAGE: &str = "gcc-aarch64-linux-gnu";
const CROSS_GCC: &str = "aarch64-linux-gnu-gcc";
/// The aarch64 C library headers Debian's cross compiler uses, and one of them.
const CROSS_LIBC: &str = "libc6-dev-arm64-cross";
const CROSS_LIBC_HEADER: &str = "/usr/aarch64-linux-gnu/include/stdio.h";

/// The generated size section: a table per target, how the Android figure was made, and the
/// per-crate breakdowns.
pub fn table() -> Result<String, String> {
    util::run(Command::new("rustup").args(["target", "add", ANDROID]))?;
    let android = AndroidLink::prepare()?;
    let dir = cargo_target_dir().join("cetp-bench-sizes");
    fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut out = String::from(
        "| sample | x86_64 Linux `cdylib`, stripped | aarch64-linux-android `cdylib`, stripped |\n|---|---|---|\n",
    );
    let mut breakdowns = String::new();
    for sample in SAMPLES {
        let crate::package::Package {
            name: package,
            lib_name: lib,
            ..
        } = crate::package::read(&host_build::resolve_dir(sample)?)?;

        util::run(util::cargo().args([
            "rustc",
            "-p",
            &package,
            "--release",
            "--lib",
            "--crate-type",
            "cdylib",
        ]))?;
        let so = cargo_target_dir()
            .join("release")
            .join(format!("lib{lib}.so"));
        let host = dir.join(format!("lib{lib}.x86_64.so"));
        strip("strip", &so, &host)?;

        let unstripped = android.build(&package, &lib)?;
        let phone = dir.join(format!("lib{lib}.aarch64.so"));
        strip(&android.strip, &unstripped, &phone)?;

        out.push_str(&format!(
            "| `{sample}` | {} | {} |\n",
            size(&host)?,
            size(&phone)?
        ));
        if BROKEN_DOWN.contains(sample) {
            breakdowns.push_str(&format!(
                "\n`{sample}` (x86_64, symbol bytes by crate):\n\n{}",
                breakdown(&so)?
            ));
        }
    }
    out.push_str(
        "\nThe Android libraries are linked here without the NDK: `rust-lld` with empty \
         archives for bionic's shared `libc`/`libm`/`libdl`/`liblog` (their symbols stay \
         imports, as on a phone), GCC's aarch64 unwinder `libgcc_eh.a` for the NDK's \
         `libunwind.a` (which the NDK links into the library), and SQLite compiled by \
         `aarch64-linux-gnu-gcc` (GCC 12, glibc headers) for the NDK's clang and bionic. \
         Stripped with `strip --strip-all`, as packaging strips them. See \
         `xtask/src/bench/sizes.rs`.\n",
    );
    out.push_str(&breakdowns);
    Ok(out)
}

/// What links an Android `cdylib` here: `rust-lld`, the stand-in libraries, the cross tools.
struct AndroidLink {
    lld: PathBuf,
    stubs: PathBuf,
    gcc: PathBuf,
    ar: PathBuf,
    strip: String,
    target_dir: PathBuf,
}

impl AndroidLink {
    fn prepare() -> Result<AndroidLink, String> {
        let gcc = cross_gcc()?;
        let tool = |name: &str| gcc.with_file_name(format!("aarch64-linux-gnu-{name}"));
        let sysroot = output(Command::new("rustc").args(["--print", "sysroot"]))?;
        let host = output(Command::new("rustc").arg("-vV"))?
            .lines()
            .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
            .ok_or("`rustc -vV` names no host")?;
        let lld = Path::new(sysroot.trim())
            .join("lib/rustlib")
            .join(host)
            .join("bin/rust-lld");
        if !lld.is_file() {
            return Err(format!(
                "the toolchain has no rust-lld at {}",
                lld.display()
            ));
        }
        let stubs = cargo_target_dir().join("cetp-bench-sizes/android-libs");
        fs::create_dir_all(&stubs)
            .map_err(|e| format!("cannot create {}: {e}", stubs.display()))?;
        for lib in ["c", "m", "dl", "log"] {
            let archive = stubs.join(format!("lib{lib}.a"));
            fs::write(&archive, b"!<arch>\n")
                .map_err(|e| format!("cannot write {}: {e}", archive.display()))?;
        }
        let unwinder = output(Command::new(&gcc).arg("-print-file-name=libgcc_eh.a"))?;
        let unwinder = PathBuf::from(unwinder.trim());
        if !unwinder.is_absolute() {
            return Err(format!("{} has no libgcc_eh.a", gcc.display()));
        }
        fs::copy(&unwinder, stubs.join("libunwind.a"))
            .map_err(|e| format!("cannot copy {}: {e}", unwinder.display()))?;
        Ok(AndroidLink {
            lld,
            stubs,
            ar: tool("ar"),
            strip: tool("strip").display().to_string(),
            gcc,
            // Apart from the target directory of `cargo xtask android-check`, whose builds of
            // the same target use no linker.
            target_dir: cargo_target_dir().join("cetp-bench-sizes/cargo"),
        })
    }

    /// Builds `package` as an Android `cdylib`; returns the unstripped library.
    fn build(&self, package: &str, lib: &str) -> Result<PathBuf, String> {
        let mut cargo = util::cargo();
        cargo
            .args(["rustc", "-p", package, "--release", "--lib"])
            .args(["--crate-type", "cdylib", "--target", ANDROID])
            .env("CARGO_TARGET_DIR", &self.target_dir)
            .env("CARGO_TARGET_AARCH64_LINUX_ANDROID_LINKER", &self.lld)
            .env(
                "CARGO_TARGET_AARCH64_LINUX_ANDROID_RUSTFLAGS",
                format!("-C linker-flavor=ld.lld -L {}", self.stubs.display()),
            )
            .env("CC_aarch64_linux_android", &self.gcc)
            .env("AR_aarch64_linux_android", &self.ar);
        util::run(&mut cargo)?;
        Ok(self
            .target_dir
            .join(ANDROID)
            .join("release")
            .join(format!("lib{lib}.so")))
    }
}

/// The aarch64 cross compiler (`CETP_CROSS_GCC` overrides `aarch64-linux-gnu-gcc` on `PATH`),
/// with the C library headers SQLite includes: Debian installs those with the compiler only
/// when recommended packages are, so they are checked on their own. Checked before anything is
/// built; installs nothing.
pub fn cross_gcc() -> Result<PathBuf, String> {
    match std::env::var_os("CETP_CROSS_GCC") {
        // Another compiler brings its own C library headers.
        Some(path) => {
            let path = PathBuf::from(path);
            if path.is_file() {
                Ok(path)
            } else {
                Err(format!("CETP_CROSS_GCC={} is not a file", path.display()))
            }
        }
        None => cross_tools(
            cargo_cetp::android_build::bundle::on_path(CROSS_GCC),
            Path::new(CROSS_LIBC_HEADER),
        ),
    }
}

/// The cross compiler found (`gcc`, if any) when the aarch64 C library headers are where
/// `header` says; else what is missing, the Debian packages to install and the command.
fn cross_tools(gcc: Option<PathBuf>, header: &Path) -> Result<PathBuf, String> {
    let has_header = header.is_file();
    let mut missing = Vec::new();
    let mut packages = Vec::new();
    if gcc.is_none() {
        missing.push(format!(
            "`{CROSS_GCC}` is not on PATH (Debian's `{CROSS_PACKAGE}`: it compiles SQLite and \
             brings `aarch64-linux-gnu-strip` and GCC's unwinder)"
        ));
        packages.push(CROSS_PACKAGE);
    }
    if !has_header {
        missing.push(format!(
            "`{}` is missing (Debian's `{CROSS_LIBC}`: the aarch64 C library headers SQLite \
             includes)",
            header.display()
        ));
        packages.push(CROSS_LIBC);
    }
    match gcc {
        Some(gcc) if has_header => Ok(gcc),
        _ => Err(format!(
            "the aarch64-linux-android size figures cannot be built: {}. Install with \
             `sudo apt-get install --no-install-recommends {}`, or point CETP_CROSS_GCC at an \
             aarch64 Linux GCC with its own C library",
            missing.join("; "),
            packages.join(" ")
        )),
    }
}

fn strip(tool: &str, from: &Path, to: &Path) -> Result<(), String> {
    util::run(
        Command::new(tool)
            .arg("--strip-all")
            .arg(from)
            .arg("-o")
            .arg(to),
    )
}

fn size(path: &Path) -> Result<String, String> {
    let bytes = fs::metadata(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
        .len();
    Ok(format!(
        "{:.2} MiB ({bytes} bytes)",
        bytes as f64 / (1024.0 * 1024.0)
    ))
}

fn output(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{cmd:?} failed ({})", out.status));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The symbol bytes (code, read-only data, data) of `so` by crate, largest first: a table of
/// the top crates and the rest.
fn breakdown(so: &Path) -> Result<String, String> {
    let listing = output(Command::new("nm").args(["-S", "--size-sort", "-C"]).arg(so))?;
    let mut by_crate: BTreeMap<String, u64> = BTreeMap::new();
    let mut total = 0;
    for line in listing.lines() {
        let mut fields = line.splitn(4, ' ');
        let (Some(_), Some(size), Some(kind), Some(name)) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if !matches!(
            kind,
            "t" | "T" | "w" | "W" | "r" | "R" | "d" | "D" | "v" | "V"
        ) {
            continue;
        }
        let Ok(size) = u64::from_str_radix(size, 16) else {
            continue;
        };
        total += size;
        *by_crate.entry(crate_of(name)).or_default() += size;
    }
    let mut crates: Vec<(String, u64)> = by_crate.into_iter().collect();
    crates.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let kib = |bytes: u64| format!("{:.0} KiB", bytes as f64 / 1024.0);
    let mut out = String::from("| crate | bytes |\n|---|---|\n");
    for (name, bytes) in crates.iter().take(TOP_CRATES) {
        out.push_str(&format!("| {name} | {} |\n", kib(*bytes)));
    }
    let rest: u64 = crates.iter().skip(TOP_CRATES).map(|(_, b)| b).sum();
    out.push_str(&format!("| everything else | {} |\n", kib(rest)));
    out.push_str(&format!("| **all symbols** | {} |\n", kib(total)));
    Ok(out)
}

/// The crate a demangled symbol belongs to: its first path segment; for `<A as B>::f`, `A`'s
/// crate unless that is `core`/`alloc`/`std` (then `B`'s). Generic code instantiated for a type
/// of another crate counts for the crate that defines the function (`core::ptr::drop_in_place`
/// is `core`). Symbols without a Rust path are LLVM's constants (`anon.…`) or C.
fn crate_of(name: &str) -> String {
    fn first(path: &str) -> Option<&str> {
        let path = path.trim_start_matches(['&', '*', '[', '(']);
        let path = path
            .strip_prefix("mut ")
            .or_else(|| path.strip_prefix("const "))
            .or_else(|| path.strip_prefix("dyn "))
            .unwrap_or(path);
        let end = path.find("::")?;
        let segment = &path[..end];
        segment
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
            .then_some(segment)
    }
    if let Some(inner) = name.strip_prefix('<') {
        let own = first(inner);
        let of_trait = inner.split_once(" as ").and_then(|(_, t)| first(t));
        let chosen = match own {
            Some("core" | "alloc" | "std") | None => of_trait.or(own),
            own => own,
        };
        if let Some(krate) = chosen {
            return krate.to_owned();
        }
    }
    if let Some(krate) = first(name) {
        return krate.to_owned();
    }
    if name.starts_with("anon.") {
        "(constants)".to_owned()
    } else {
        "(C and other unmangled symbols)".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn present() -> PathBuf {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
    }

    fn absent() -> PathBuf {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/no-such-dir/stdio.h"))
    }

    /// With the compiler and the headers, the compiler is what the build uses.
    #[test]
    fn both_present_is_the_compiler() {
        let gcc = present();
        assert_eq!(cross_tools(Some(gcc.clone()), &present()), Ok(gcc));
    }

    /// Without either, the error names both packages in one command, before anything is built.
    #[test]
    fn both_missing_name_both_packages_and_the_command() {
        let err = cross_tools(None, &absent()).unwrap_err();
        assert!(
            err.contains(
                "`sudo apt-get install --no-install-recommends gcc-aarch64-linux-gnu \
                 libc6-dev-arm64-cross`"
            ),
            "{err}"
        );
        assert!(
            err.contains("`aarch64-linux-gnu-gcc` is not on PATH"),
            "{err}"
        );
        assert!(err.contains(&absent().display().to_string()), "{err}");
        assert!(err.contains("CETP_CROSS_GCC"), "{err}");
    }

    /// The compiler without the C library headers (Debian installs them only as a recommended
    /// package): only the headers' package is asked for.
    #[test]
    fn missing_headers_name_their_package() {
        let err = cross_tools(Some(present()), &absent()).unwrap_err();
        assert!(
            err.contains("`sudo apt-get install --no-install-recommends libc6-dev-arm64-cross`"),
            "{err}"
        );
        assert!(err.contains(&absent().display().to_string()), "{err}");
        assert!(!err.contains("gcc-aarch64-linux-gnu"), "{err}");
    }

    /// The headers without the compiler: only the compiler's package is asked for.
    #[test]
    fn missing_compiler_names_its_package() {
        let err = cross_tools(None, &present()).unwrap_err();
        assert!(
            err.contains("`sudo apt-get install --no-install-recommends gcc-aarch64-linux-gnu`"),
            "{err}"
        );
        assert!(!err.contains("libc6-dev-arm64-cross"), "{err}");
    }
}
