//! Shared helpers: the workspace layout, running tools, the android-all jar.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Robolectric build of the SDK 34 framework: the real Android API surface as a plain jar.
pub const ANDROID_ALL_VERSION: &str = "14-robolectric-10818077";

/// The workspace root (the parent of `xtask/`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives inside the workspace")
        .to_path_buf()
}

/// Cargo's target directory: `CARGO_TARGET_DIR` if set, else `<root>/target`.
pub fn cargo_target_dir() -> PathBuf {
    match env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                workspace_root().join(dir)
            }
        }
        None => workspace_root().join("target"),
    }
}

/// The cargo that runs this xtask (same toolchain).
pub fn cargo() -> Command {
    let mut cmd = Command::new(env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(workspace_root());
    cmd
}

/// A JDK tool (`javac`, `jar`): from `JAVA_HOME/bin` when set, else from `PATH`.
pub fn jdk_tool(name: &str) -> Command {
    if let Some(home) = env::var_os("JAVA_HOME") {
        let candidate = Path::new(&home).join("bin").join(name);
        if candidate.is_file() {
            return Command::new(candidate);
        }
    }
    Command::new(name)
}

/// Runs `cmd`, echoing it; fails with its exit status.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    eprintln!("xtask: running {}", describe(cmd));
    let status = cmd
        .status()
        .map_err(|e| format!("cannot start {}: {e}", describe(cmd)))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{} failed ({status})", describe(cmd)))
    }
}

fn describe(cmd: &Command) -> String {
    let mut text = cmd.get_program().to_string_lossy().into_owned();
    for arg in cmd.get_args() {
        text.push(' ');
        text.push_str(&arg.to_string_lossy());
    }
    text
}

/// The `org.robolectric:android-all` jar to compile Java against.
///
/// `CETP_ANDROID_ALL_JAR` wins; otherwise the jar in the local Maven repository
/// (`~/.m2/repository`, or `CETP_M2_REPO`), fetched with `mvn dependency:get` when missing.
pub fn android_all_jar() -> Result<PathBuf, String> {
    if let Some(jar) = env::var_os("CETP_ANDROID_ALL_JAR") {
        let jar = PathBuf::from(jar);
        return if jar.is_file() {
            Ok(jar)
        } else {
            Err(format!(
                "CETP_ANDROID_ALL_JAR={} is not a file",
                jar.display()
            ))
        };
    }
    let repo = match env::var_os("CETP_M2_REPO") {
        Some(repo) => PathBuf::from(repo),
        None => {
            let home = env::var_os("HOME").ok_or("HOME is not set; set CETP_M2_REPO")?;
            Path::new(&home).join(".m2").join("repository")
        }
    };
    let jar = repo
        .join("org/robolectric/android-all")
        .join(ANDROID_ALL_VERSION)
        .join(format!("android-all-{ANDROID_ALL_VERSION}.jar"));
    if !jar.is_file() {
        let mut mvn = Command::new("mvn");
        mvn.args([
            "-q",
            "dependency:get",
            &format!("-Dartifact=org.robolectric:android-all:{ANDROID_ALL_VERSION}"),
            &format!("-Dmaven.repo.local={}", repo.display()),
        ]);
        run(&mut mvn)?;
    }
    if jar.is_file() {
        Ok(jar)
    } else {
        Err(format!(
            "{} is still missing after mvn dependency:get",
            jar.display()
        ))
    }
}

/// Compiles every `.java` file under `source_roots` into `out` against `classpath`.
pub fn javac(
    source_roots: &[PathBuf],
    classpath: &Path,
    out: &Path,
    warnings_are_errors: bool,
) -> Result<(), String> {
    let mut sources = Vec::new();
    for root in source_roots {
        collect_files(root, "java", &mut sources)?;
    }
    if sources.is_empty() {
        return Err("no Java sources to compile".into());
    }
    sources.sort();
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut cmd = jdk_tool("javac");
    // `classfile` warnings come from android-all's own annotations, not from our code.
    cmd.args([
        "--release",
        "17",
        "-encoding",
        "UTF-8",
        "-Xlint:all,-classfile",
    ]);
    if warnings_are_errors {
        cmd.arg("-Werror");
    }
    cmd.arg("-classpath")
        .arg(classpath)
        .arg("-d")
        .arg(out)
        .args(&sources);
    run(&mut cmd)
}

/// Appends every file under `dir` whose extension is `ext`.
pub fn collect_files(dir: &Path, ext: &str, into: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .path();
        if path.is_dir() {
            collect_files(&path, ext, into)?;
        } else if path.extension().is_some_and(|e| e == ext) {
            into.push(path);
        }
    }
    Ok(())
}

/// The template's AIDL sources: the Apex plugin interface.
pub fn aidl_root() -> PathBuf {
    workspace_root().join("android-template/src/main/aidl")
}

/// Debian's package holding the real AIDL compiler (`/usr/bin/aidl`).
const AIDL_PACKAGE: &str = "aidl";

/// The AIDL compiler, installed when missing: `apt-get install -y aidl` when running as root
/// (as CI does), else an error saying what to install. `CETP_AIDL=/path/to/aidl` overrides.
pub fn aidl() -> Result<PathBuf, String> {
    if let Some(path) = env::var_os("CETP_AIDL") {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!("CETP_AIDL={} is not a file", path.display()))
        };
    }
    if let Some(found) = on_path("aidl") {
        return Ok(found);
    }
    let root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false);
    let apt = on_path("apt-get");
    match (root, apt) {
        (true, Some(apt)) => {
            eprintln!("xtask: the AIDL compiler is missing; installing Debian's `{AIDL_PACKAGE}`");
            let mut install = Command::new(&apt);
            install
                .args(["install", "-y", "--no-install-recommends", AIDL_PACKAGE])
                .env("DEBIAN_FRONTEND", "noninteractive");
            if run(&mut install).is_err() {
                // A fresh image has no package lists yet.
                run(Command::new(&apt).arg("update"))?;
                run(&mut install)?;
            }
            on_path("aidl").ok_or_else(|| {
                format!("`apt-get install {AIDL_PACKAGE}` succeeded but `aidl` is not on PATH")
            })
        }
        _ => Err(format!(
            "the AIDL compiler `aidl` is not on PATH; it compiles the Apex plugin interface \
             (android-template/src/main/aidl). Install it with `sudo apt-get install {AIDL_PACKAGE}` \
             (Debian/Ubuntu), or point CETP_AIDL at an `aidl` binary from the Android SDK's build-tools"
        )),
    }
}

/// Generates the Java `Stub`/`Proxy` of every `.aidl` file under [`aidl_root`] into `out`
/// (replaced), with the real AIDL compiler. Returns `out`.
pub fn generate_aidl_java(out: &Path) -> Result<PathBuf, String> {
    let aidl = aidl()?;
    let root = aidl_root();
    let mut inputs = Vec::new();
    collect_files(&root, "aidl", &mut inputs)?;
    inputs.sort();
    if out.exists() {
        std::fs::remove_dir_all(out).map_err(|e| format!("cannot clean {}: {e}", out.display()))?;
    }
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut cmd = Command::new(aidl);
    cmd.arg("--lang=java")
        .arg(format!("-I{}", root.display()))
        .arg(format!("-o{}", out.display()))
        .args(&inputs);
    run(&mut cmd)?;
    Ok(out.to_path_buf())
}

/// The file `program` on `PATH`, if any.
pub fn on_path(program: &str) -> Option<PathBuf> {
    env::split_paths(&env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}
