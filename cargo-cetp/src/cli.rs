//! The command line, parsed by clap: one `Options` type per command, with its `--help` text.
//!
//! `cargo cetp <command>` runs this binary as `cargo-cetp cetp <command>`; [`crate::run`] drops
//! that `cetp`, so `cargo-cetp <command>` works as well.

use std::path::PathBuf;

use clap::error::ErrorKind;
use clap::{Args, Parser, Subcommand};

use crate::{Error, Result};

/// What to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Command {
    /// Print this text (a `--help`, or no command).
    Help(String),
    /// `cargo cetp new`.
    New(NewOptions),
    /// `cargo cetp init`.
    Init(InitOptions),
    /// `cargo cetp check`.
    Check(CheckOptions),
    /// `cargo cetp mcp`.
    Mcp(McpOptions),
    /// `cargo cetp build`.
    Build(BuildOptions),
    /// `cargo cetp test`.
    Test(TestOptions),
    /// `cargo cetp preview`.
    Preview(PreviewOptions),
}

const MANIFEST_PATH: &str = "The app's Cargo.toml [default: ./Cargo.toml]";
const ANDROID_MODULE: &str = "\
The Android app module, when the Gradle build around the crate
has several: its directory or Gradle path (`:app`) [default:
android/ beside Cargo.toml, else the build's only app module]";
const PACKAGE: &str = "\
The application id to build the provider for [default: the
Android module's applicationId or namespace]";

/// `cargo cetp build [--manifest-path …] [--release] [--out …]`.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub(crate) struct BuildOptions {
    /// The app's `Cargo.toml` (default: `./Cargo.toml`).
    #[arg(long, value_name = "path", help = MANIFEST_PATH)]
    pub manifest_path: Option<PathBuf>,
    /// Build the native library with the release profile.
    #[arg(
        long,
        help = "Build the native library with the release profile [default\n\
                directory: <target>/cetp-host-release/<dir-name>]"
    )]
    pub release: bool,
    /// Where the bundle goes (default: `<target>/cetp-host/<dir-name>`).
    #[arg(
        long,
        value_name = "dir",
        help = "Where the bundle goes, replacing what is there\n\
                [default: <target>/cetp-host/<dir-name>]"
    )]
    pub out: Option<PathBuf>,
    /// The Android app module (`--android-module`: a directory or a Gradle path like `:app`),
    /// when the crate's Gradle build has several.
    #[arg(long, value_name = "m", help = ANDROID_MODULE)]
    pub android_module: Option<PathBuf>,
}

/// `cargo cetp test [--manifest-path …] [--test …]`.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub(crate) struct TestOptions {
    /// The app's `Cargo.toml` (default: `./Cargo.toml`).
    #[arg(long, value_name = "path", help = MANIFEST_PATH)]
    pub manifest_path: Option<PathBuf>,
    /// Run only this test class (or Surefire pattern, `Class#method`).
    #[arg(
        long,
        value_name = "pattern",
        help = "Run only these tests: a class, Class#method, or a Surefire pattern"
    )]
    pub test: Option<String>,
    /// The Android app module (`--android-module`: a directory or a Gradle path like `:app`),
    /// when the crate's Gradle build has several.
    #[arg(long, value_name = "m", help = ANDROID_MODULE)]
    pub android_module: Option<PathBuf>,
}

/// `cargo cetp preview [--manifest-path …] [--out …]`.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub(crate) struct PreviewOptions {
    /// The app's `Cargo.toml` (default: `./Cargo.toml`).
    #[arg(long, value_name = "path", help = MANIFEST_PATH)]
    pub manifest_path: Option<PathBuf>,
    /// Where the PNGs go (default: `<target>/cetp/preview/<dir-name>`).
    #[arg(
        long,
        value_name = "dir",
        help = "Where the PNGs go [default: <target>/cetp/preview/<dir-name>]"
    )]
    pub out: Option<PathBuf>,
    /// The Android app module (`--android-module`: a directory or a Gradle path like `:app`),
    /// when the crate's Gradle build has several.
    #[arg(long, value_name = "m", help = ANDROID_MODULE)]
    pub android_module: Option<PathBuf>,
}

/// Where a new app's `cetp-provider` comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SdkSource {
    /// A released version from crates.io (the default: this `cargo cetp`'s own).
    Registry {
        /// The version.
        version: String,
    },
    /// A checkout on disk (the directory holding `cetp-provider/` and `android-template/`).
    Path(PathBuf),
    /// A git repository, at a revision if given.
    Git {
        /// The repository URL.
        url: String,
        /// A commit, tag or branch.
        rev: Option<String>,
    },
}

impl SdkSource {
    /// The version of the test kit that goes with this SDK: the released one's, a checkout's
    /// own (its workspace version), or this `cargo cetp`'s for a git repository.
    ///
    /// # Errors
    /// [`crate::Error::App`] when `--sdk-path` is not an SDK checkout.
    pub(crate) fn kit_version(&self) -> crate::Result<String> {
        Ok(match self {
            SdkSource::Registry { version } => version.clone(),
            SdkSource::Path(dir) => crate::android_build::bundle::Sdk::at(dir)?.kit_version(),
            SdkSource::Git { .. } => crate::android_build::robolectric::KIT_VERSION.to_owned(),
        })
    }

    /// Where the template module comes from, for a person: "from the crate
    /// cetp-android-template 0.1.0", "from <dir>/android-template", "from a checkout of <url>".
    pub(crate) fn template_origin(&self) -> String {
        match self {
            SdkSource::Registry { version } => {
                format!("from the crate cetp-android-template {version}")
            }
            SdkSource::Path(dir) => format!("from {}", dir.join("android-template").display()),
            SdkSource::Git { url, .. } => format!("from a checkout of {url}"),
        }
    }
}

/// `--sdk-path`, `--sdk-git` and `--sdk-rev` of `new` and `init`: one [`SdkSource`].
#[derive(Debug, Args)]
struct SdkArgs {
    #[arg(
        long,
        value_name = "dir",
        conflicts_with = "sdk_git",
        help = "Depend on the SDK checkout in <dir> (holding cetp-provider/ and\n\
                android-template/), to work on the SDK itself [default: the released\n\
                SDK of this cargo-cetp's version, from crates.io]"
    )]
    sdk_path: Option<PathBuf>,
    #[arg(
        long,
        value_name = "url",
        help = "Depend on the SDK's git repository instead"
    )]
    sdk_git: Option<String>,
    #[arg(
        long,
        value_name = "rev",
        requires = "sdk_git",
        help = "With --sdk-git: the commit, tag or branch"
    )]
    sdk_rev: Option<String>,
}

impl SdkArgs {
    /// The source these flags name (clap has ruled out the combinations that make no sense).
    fn source(self) -> SdkSource {
        match (self.sdk_path, self.sdk_git) {
            (_, Some(url)) => SdkSource::Git {
                url,
                rev: self.sdk_rev,
            },
            (Some(path), None) => SdkSource::Path(path),
            (None, None) => SdkSource::Registry {
                version: crate::android_build::robolectric::KIT_VERSION.to_owned(),
            },
        }
    }
}

/// `cargo cetp new <dir> [--name …] [--package …] [--sdk-path … | --sdk-git … [--sdk-rev …]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NewOptions {
    /// The directory to create (it may exist if empty).
    pub dir: PathBuf,
    /// The crate name (default: the directory's name).
    pub name: Option<String>,
    /// The Android application id (default `com.example.<name>`).
    pub package: Option<String>,
    /// Where `cetp-provider` comes from (default: the SDK this binary was built from).
    pub sdk: SdkSource,
}

/// The command line of `new`, before its SDK flags become one [`SdkSource`].
#[derive(Debug, Args)]
struct NewArgs {
    #[arg(
        value_name = "dir",
        help = "The directory to create, e.g. `recipes` (it must not exist or be empty)"
    )]
    dir: PathBuf,
    #[arg(
        long,
        value_name = "name",
        help = "The crate name [default: the directory's name]"
    )]
    name: Option<String>,
    #[arg(
        long,
        value_name = "id",
        help = "The Android application id [default: com.example.<name>]"
    )]
    package: Option<String>,
    #[command(flatten)]
    sdk: SdkArgs,
}

/// `cargo cetp init [<project>] [--android-module …] [--crate-dir …] [--name …] [--sdk-path … |
/// --sdk-git … [--sdk-rev …]] [--dry-run]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InitOptions {
    /// A directory of the Android project (default `.`): its Gradle root is the nearest
    /// directory holding `settings.gradle(.kts)`.
    pub project: PathBuf,
    /// The app module: a directory or a Gradle path (`:app`) [default: the only module applying
    /// the Android application plugin].
    pub android_module: Option<PathBuf>,
    /// The app's crate, or where a new one goes (default: the crate a Rust Gradle plugin's
    /// block names, else `rust/` in the root project).
    pub crate_dir: Option<PathBuf>,
    /// A new crate's name (default: from the app's label, else the project directory's name).
    pub name: Option<String>,
    /// Where `cetp-provider` comes from (default: the SDK this binary was built from).
    pub sdk: SdkSource,
    /// Print the changes `init` would make, and write nothing.
    pub dry_run: bool,
}

/// The command line of `init`, before its SDK flags become one [`SdkSource`].
#[derive(Debug, Args)]
struct InitArgs {
    #[arg(
        value_name = "project dir",
        default_value = ".",
        hide_default_value = true,
        help = "A directory of the Android project [default: here]"
    )]
    project: PathBuf,
    #[arg(
        long,
        value_name = "m",
        help = "The app module: its directory or Gradle path (`:app`) [default: the\n\
                only module applying com.android.application]"
    )]
    android_module: Option<PathBuf>,
    #[arg(
        long,
        value_name = "dir",
        help = "The app's crate, or where a new one goes [default: the crate a Rust Gradle\n\
                plugin's block names, else rust/ in the root project]"
    )]
    crate_dir: Option<PathBuf>,
    #[arg(
        long,
        value_name = "name",
        help = "A new crate's name [default: from the app's label, else the project\n\
                directory's name]"
    )]
    name: Option<String>,
    #[command(flatten)]
    sdk: SdkArgs,
    #[arg(
        long,
        help = "Print the changes init would make (the same steps a run reports)\n\
                and write nothing"
    )]
    dry_run: bool,
}

/// `cargo cetp check [--manifest-path …] [--package …] [--android-module …] [--lib <path>]…`.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub(crate) struct CheckOptions {
    /// The app's `Cargo.toml` (default: `./Cargo.toml`).
    #[arg(long, value_name = "path", help = MANIFEST_PATH)]
    pub manifest_path: Option<PathBuf>,
    /// The application id the provider is built for (default: the Android module's).
    #[arg(long, value_name = "id", help = PACKAGE)]
    pub package: Option<String>,
    /// The Android app module (`--android-module`: a directory or a Gradle path like `:app`),
    /// when the crate's Gradle build has several.
    #[arg(long, value_name = "m", help = ANDROID_MODULE)]
    pub android_module: Option<PathBuf>,
    /// Built native libraries to check for 16 KB page alignment, and nothing else.
    #[arg(
        long = "lib",
        value_name = "path",
        help = "Only check this built library's 16 KB page alignment (repeat for\n\
                more; its ABI is taken from its directory, e.g. jniLibs/arm64-v8a/)"
    )]
    pub libs: Vec<PathBuf>,
}

/// How much the MCP bridge's caller may see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Approved, full access.
    Full,
    /// Approved, limited access.
    Limited,
    /// Not approved: tool calls answer `AUTH_REQUIRED` under user approval.
    Unapproved,
}

impl Access {
    /// The spelling on the command line and the runner's.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Access::Full => "full",
            Access::Limited => "limited",
            Access::Unapproved => "unapproved",
        }
    }

    fn parse(value: &str) -> Result<Access, String> {
        [Access::Full, Access::Limited, Access::Unapproved]
            .into_iter()
            .find(|access| access.as_str() == value)
            .ok_or_else(|| "use `full`, `limited` or `unapproved`".to_owned())
    }
}

fn uid(value: &str) -> Result<u32, String> {
    value
        .parse()
        .map_err(|_| "not a UID (a number like 10123)".to_owned())
}

fn certificate(value: &str) -> Result<String, String> {
    if value.len() == 64 && value.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(value.to_ascii_lowercase())
    } else {
        Err("not a SHA-256 digest: give 64 hex digits".to_owned())
    }
}

/// `cargo cetp mcp [--manifest-path …] [--caller …] [--uid …] [--certificate …] [--access …]
/// [--package …] [--files-dir …]`.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub(crate) struct McpOptions {
    /// The app's `Cargo.toml` (default: `./Cargo.toml`).
    #[arg(long, value_name = "path", help = MANIFEST_PATH)]
    pub manifest_path: Option<PathBuf>,
    /// The calling app's package.
    #[arg(
        long,
        value_name = "package",
        default_value = DEFAULT_CALLER,
        hide_default_value = true,
        help = "The calling app's package [default: com.example.agent]"
    )]
    pub caller: String,
    /// The calling app's UID.
    #[arg(
        long,
        value_name = "uid",
        default_value_t = DEFAULT_UID,
        value_parser = uid,
        hide_default_value = true,
        help = "The calling app's UID [default: 10123]"
    )]
    pub uid: u32,
    /// The SHA-256 of the calling app's signing certificate (hex).
    #[arg(
        long,
        value_name = "sha256",
        default_value = DEFAULT_CERTIFICATE,
        value_parser = certificate,
        hide_default_value = true,
        help = "The SHA-256 of its signing certificate, 64 hex digits\n[default: a9e1a9e1…]"
    )]
    pub certificate: String,
    /// What the caller may see.
    #[arg(
        long,
        value_name = "access",
        default_value = "full",
        value_parser = Access::parse,
        hide_default_value = true,
        help = "full | limited | unapproved: approve the caller with full or limited\n\
                access, or not at all [default: full]"
    )]
    pub access: Access,
    /// The application id the provider is built for (default: the Android module's).
    #[arg(long, value_name = "id", help = PACKAGE)]
    pub package: Option<String>,
    /// The app's files directory (default: a fresh scratch directory, removed afterwards).
    #[arg(
        long,
        value_name = "dir",
        help = "The app's files directory (data, grants) [default: a scratch\n\
                directory, removed on exit]"
    )]
    pub files_dir: Option<PathBuf>,
    /// The Android app module (`--android-module`: a directory or a Gradle path like `:app`),
    /// when the crate's Gradle build has several.
    #[arg(long, value_name = "m", help = ANDROID_MODULE)]
    pub android_module: Option<PathBuf>,
}

/// The caller `cargo cetp mcp` plays by default.
pub(crate) const DEFAULT_CALLER: &str = "com.example.agent";
/// Its UID.
pub(crate) const DEFAULT_UID: u32 = 10_123;
/// Its certificate digest.
pub(crate) const DEFAULT_CERTIFICATE: &str =
    "a9e1a9e1a9e1a9e1a9e1a9e1a9e1a9e1a9e1a9e1a9e1a9e1a9e1a9e1a9e1a9e1";

/// `cargo cetp`: the commands.
#[derive(Debug, Parser)]
#[command(
    name = "cargo cetp",
    bin_name = "cargo cetp",
    about = "cargo cetp: create, check, try and test CETP tool providers",
    arg_required_else_help = true,
    subcommand_value_name = "command",
    after_help = "Run `cargo cetp <command> --help` for a command's options."
)]
struct Cli {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, Subcommand)]
enum Sub {
    #[command(
        about = "Create an app crate with its Android module, ready to build and test",
        long_about = NEW_ABOUT,
        after_help = "Then: cd <dir> && cargo test && cargo cetp check"
    )]
    New(NewArgs),
    #[command(
        about = "Add the provider to an Android project that exists: a Rust crate, the template\n\
                 module, the app module's dependency and placeholders",
        long_about = INIT_ABOUT,
        after_help = "Then: cd rust && cargo test && cargo cetp check"
    )]
    Init(InitArgs),
    #[command(
        about = "Check the app crate here: schemas per LLM API, CETP conformance, parameter\n\
                 descriptions, scope wording, the Android module, 16 KB page alignment of\n\
                 its Android libraries (or of the ones --lib names)",
        long_about = CHECK_ABOUT
    )]
    Check(CheckOptions),
    #[command(
        about = "Serve the app's provider as an MCP server over stdio, to call its tools from an\n\
                 MCP client (MCP Inspector, a desktop LLM app) as an agent would",
        long_about = MCP_ABOUT,
        after_help = "Example client configuration (command and arguments):\n  \
                      cargo cetp mcp --manifest-path /path/to/app/Cargo.toml --access limited"
    )]
    Mcp(McpOptions),
    #[command(
        about = "Build the app's host bundle: its provider, the Android template and the app's \
                 Java\nand resources, to run on this machine's JVM under Robolectric",
        long_about = BUILD_ABOUT
    )]
    Build(BuildOptions),
    #[command(
        about = "Run the app's own Java/Kotlin tests (<app module>/src/test/) with Robolectric\n\
                 against the host bundle, through the SDK's test kit",
        long_about = TEST_ABOUT
    )]
    Test(TestOptions),
    #[command(
        about = "Render the app's consent dialog and Apps with access screen (light, night, \
                 Arabic)\nto PNGs, as the phone's owner will see them",
        long_about = PREVIEW_ABOUT
    )]
    Preview(PreviewOptions),
}

const NEW_ABOUT: &str = "\
cargo cetp new: create an app crate with its Android module

Writes, in <dir> (which must not exist or be empty):
  Cargo.toml                      the Rust crate (cdylib for Android, rlib for tests and tools)
  src/lib.rs                      one example tool, the provider, export_provider!
  tests/provider.rs               host tests through cetp_provider::testing
  android/                        the Android app module: build.gradle.kts (placeholders),
                                  settings.gradle.kts (the SDK's template module),
                                  gradle.properties, src/main/AndroidManifest.xml,
                                  src/test/java/.../ProviderTest.java (its own Robolectric
                                  test, run by `cargo cetp test`)
  README.md                       what is where, and the commands";

const INIT_ABOUT: &str = "\
cargo cetp init: add the provider to an Android project that exists

In the Gradle build around <project dir> (default: here; its root holds settings.gradle(.kts)):
  rust/                         the Rust crate, as `cargo cetp new` writes it (Cargo.toml,
                                src/lib.rs, tests/provider.rs), named after the app's label,
                                naming the app module under [package.metadata.cetp] so every
                                `cargo cetp` command finds it; inside a Cargo workspace, a member
  or the app's own crate        where the project has Rust (a cargoNdk/cargo Gradle block's
                                module, rust/, --crate-dir): the cdylib member that depends on
                                cetp-provider, or that the Gradle block or uniffi.toml names, or
                                the only one; it gets cetp-provider, src/agent_tools.rs, tests
  settings.gradle(.kts)         include(\":cetp\"): the SDK's Android template as a module
  gradle.properties             cetp.rustCrate, the crate relative to the root project (not
                                where a Rust Gradle plugin of the project builds it already)
  <app>/build.gradle.kts        the placeholder cetpLibrary (the crate's [lib] name) under
                                defaultConfig; cetpAuthority from each variant's application id
                                + \".tools\" (an androidComponents block, so debug installs
                                beside release); implementation(project(\":cetp\"))
  gradle/libs.versions.toml,    the Android library plugin beside the application plugin, at
  build.gradle(.kts)            its version (the template module applies it)
  <app>/src/test/java/…         AgentToolsTest.kt (naming the app's R) or ProviderTest.java: the
                                app's first test of its tools, run by `cargo cetp test`
Each step only when it is missing: a second run changes nothing. A file it cannot edit with
confidence (a Groovy build file, placeholders assigned as a map, not UTF-8, a symbolic link,
outside the project) is left as it is, and the lines to add are printed instead. Prints what it
changed, then what the machine still needs (rustup targets, cargo-ndk, the NDK) and the next
command. --dry-run prints the same and writes nothing.";

const CHECK_ABOUT: &str = "\
cargo cetp check: check an app's CETP provider before shipping it

Builds the app's provider for this machine (a runner crate in target/cetp/, with the app's
Cargo.lock) and reports:
  - each tool's schema against the rules of OpenAI, Anthropic and Gemini (strict modes too);
  - CETP v1 conformance (cetp_provider::testing::check_conformance);
  - CETP v2 conformance (cetp_provider::testing::Agent::check_v2_conformance), and whether the app
    advertises v2 (the default; `cetp.v2=false` in gradle.properties turns it off): while it
    does, a violation is an error, since ClawSeed's newest client then never falls back to v1;
  - parameters without a description;
  - scope descriptions that read wrongly in \"Open <app> and allow <agent> to read: ...\";
  - the app's texts without a translation to a language the consent screens ship in;
  - the Android module: placeholders, the permission mode, components declared twice;
  - 16 KB pages: every LOAD segment of the app's native libraries built for Android
    (target/<android target>/<profile>/, android/build/, android/src/main/jniLibs/, the
    template's build/rustJniLibs/) aligned to 16 KB, in an ELF of its ABI's class.
Each finding is a warning with its fix. Exits with 1 only for errors: a provider that does not
build, a conformance failure (CETP v2 only while advertised), or a library Android's 16 KB
page devices cannot load.";

const MCP_ABOUT: &str = "\
cargo cetp mcp: serve the app's provider as an MCP server over stdio

Builds the app's provider for this machine and serves it over MCP on stdin/stdout, so any MCP
client can list and call its tools and see what an agent on the phone gets: descriptions,
schemas, INVALID_ARGS texts, limited answers, AUTH_REQUIRED for an unapproved caller. Every call
is made as one calling app, chosen with the options below; the provider's own authorization
decides what it gets. Logs and build output go to stderr, never stdout. The first run compiles
the provider; run `cargo cetp check` once before pointing a client at this command.";

/// Where build, test and preview find the app module: the end of their long help.
macro_rules! module_text {
    () => {
        "\
The app module is the first of: --android-module (a directory, or a Gradle path such as :app);
[package.metadata.cetp] android-module in Cargo.toml (relative to the crate; `cargo cetp init`
writes it, e.g. \"../app\"); android/ beside Cargo.toml (as `cargo cetp new` writes it); the only
app module of the Gradle build whose settings.gradle(.kts) is in the crate's directory or above."
    };
}

const BUILD_ABOUT: &str = concat!(
    "\
cargo cetp build: build the app's host bundle

Builds, for this machine, what the phone would run, so Robolectric can run it on the JVM:
  lib<name>.so         the app crate as a host cdylib
  resources.ap_        the template's and the app's resources (<app module>/src/main/res)
                       compiled by aapt (Debian's `aapt`; with `aidl` for the template's AIDL),
                       with the binary manifest
  app.jar              the Android template's Java, the app's (<app module>/src/main/java, its
                       .java files) and the R classes (the app's, in its namespace, and
                       dev.cetp.R), compiled against android-all (API 34), plus Robolectric's
                       test_config.properties
  AndroidManifest.xml  <app module>/src/main/AndroidManifest.xml with the template's merged in,
                       placeholders resolved, the application id with the debug (or, with
                       --release, release) applicationIdSuffix
The resources of the libraries the module declares with a version (gradle/libs.versions.toml,
or \"group:name:version\") come from the local Maven repository, fetched by `mvn
dependency:get` when missing (your Maven settings and mirrors apply). What the bundle still
cannot have (the app's Kotlin, its libraries' code: AndroidX, Compose; a library Maven cannot
fetch) is replaced by its nearest platform equivalent, one line each on stderr (`host bundle: what -> by what
(why)`): a library theme parent by a platform theme, a library style item left out, a Kotlin
Application class by android.app.Application, a component whose class is Kotlin or in a library
left out. The app's strings, label, icon, locales and supportsRtl stay its own.
The template comes from the SDK checkout the app's cetp-provider dependency resolves to (a path
or git dependency; a registry version ships without it).

",
    module_text!()
);

const TEST_ABOUT: &str = concat!(
    "\
cargo cetp test: run the app's own Robolectric tests against its host bundle

Builds the host bundle (cargo cetp build), takes the SDK's test kit dev.cetp:cetp-testkit of
the app's SDK version from Maven's repositories (an SDK checkout's kit is installed into the
local Maven repository when missing or out of date), generates a Maven project under
<target>/cetp/test/<dir-name>/ (nothing is written into the app's sources) and runs, with
Robolectric (SDK 34, offline), the app's tests from its app module:
  <app module>/src/test/java/       Java tests (JUnit 4); Kotlin files here too
  <app module>/src/test/kotlin/     Kotlin tests, compiled with kotlin-maven-plugin when present
  <app module>/src/test/resources/
e.g. android/src/test/java/ in a crate `cargo cetp new` wrote, app/src/test/kotlin/ in an
Android project `cargo cetp init` set up. Tests compile against the bundle's classes: the app's
R (its namespace's, as with android.nonTransitiveRClass), dev.cetp.R, the template's and the
app's Java; not against the app's Kotlin or its libraries.
Needs JDK 17 and Maven; the first run downloads Robolectric and the Android framework jars from
Maven Central (about 500 MB). Prints a summary and where the reports are.

",
    module_text!()
);

const PREVIEW_ABOUT: &str = concat!(
    "\
cargo cetp preview: render the app's consent screens to PNG files

Builds the host bundle (cargo cetp build: the app module's manifest and resources), then, under
Robolectric's native graphics, has a made-up agent app (\"Example Agent\", com.example.agent)
call one of the app's tools, opens the consent dialog it is sent to and the Apps with access
screen after Allow, and renders each in the light theme, the night theme and right-to-left in
Arabic: six PNGs, with the app's own provider name, scopes and their wording, into
<target>/cetp/preview/<dir-name>/ (or --out). Prints their paths.

",
    module_text!()
);

/// Parses the arguments after `cargo cetp`.
///
/// # Errors
/// [`Error::Usage`] naming the problem, what is valid, and the `--help` to read.
pub(crate) fn parse(args: &[String]) -> Result<Command> {
    let argv = std::iter::once("cargo cetp".to_owned()).chain(args.iter().cloned());
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(err) => {
            let mut text = err.render().to_string();
            if err.kind() == ErrorKind::InvalidSubcommand {
                text = text.replacen(
                    "\n",
                    "; the commands are `new`, `init`, `check`, `mcp`, `build`, `test` and \
                     `preview`\n",
                    1,
                );
            }
            return match err.kind() {
                ErrorKind::DisplayHelp
                | ErrorKind::DisplayVersion
                | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => Ok(Command::Help(text)),
                _ => Err(Error::Usage(
                    text.strip_prefix("error: ")
                        .unwrap_or(&text)
                        .trim_end()
                        .to_owned(),
                )),
            };
        }
    };
    Ok(match cli.command {
        Sub::New(new) => Command::New(NewOptions {
            dir: new.dir,
            name: new.name,
            package: new.package,
            sdk: new.sdk.source(),
        }),
        Sub::Init(init) => Command::Init(InitOptions {
            project: init.project,
            android_module: init.android_module,
            crate_dir: init.crate_dir,
            name: init.name,
            sdk: init.sdk.source(),
            dry_run: init.dry_run,
        }),
        Sub::Check(options) => Command::Check(options),
        Sub::Mcp(options) => Command::Mcp(options),
        Sub::Build(options) => Command::Build(options),
        Sub::Test(options) => Command::Test(options),
        Sub::Preview(options) => Command::Preview(options),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(args: &str) -> Result<Command> {
        let args: Vec<String> = args.split_whitespace().map(String::from).collect();
        parse(&args)
    }

    fn help(args: &str) -> String {
        match parse_str(args).unwrap() {
            Command::Help(text) => text,
            other => panic!("{args}: {other:?}"),
        }
    }

    #[test]
    fn every_command_has_help() {
        for args in ["", "--help", "help"] {
            let text = help(args);
            assert!(
                text.starts_with("cargo cetp: create, check"),
                "{args}: {text}"
            );
            for command in ["new", "init", "check", "mcp", "build", "test", "preview"] {
                assert!(text.contains(&format!("\n  {command} ")), "{args}: {text}");
            }
        }
        for (args, expected) in [
            ("new --help", "cargo cetp new: create an app crate"),
            ("init --help", "cargo cetp init: add the provider"),
            (
                "check --help",
                "cargo cetp check: check an app's CETP provider",
            ),
            ("mcp --help", "cargo cetp mcp: serve the app's provider"),
            (
                "build --help",
                "cargo cetp build: build the app's host bundle",
            ),
            (
                "test --help",
                "cargo cetp test: run the app's own Robolectric tests",
            ),
            (
                "preview --help",
                "cargo cetp preview: render the app's consent screens",
            ),
            (
                "help preview",
                "cargo cetp preview: render the app's consent screens",
            ),
            // The paths a command uses: the app module's, wherever it is.
            ("test --help", "<app module>/src/test/kotlin/"),
            ("test --help", "app/src/test/kotlin/ in an\nAndroid project"),
            ("test --help", "[package.metadata.cetp] android-module"),
            ("build --help", "<app module>/src/main/AndroidManifest.xml"),
            ("build --help", "one line each on stderr"),
            ("preview --help", "the app module's manifest and resources"),
            ("check -h", "--manifest-path <path>"),
            ("test -h", "--test <pattern>"),
        ] {
            let text = help(args);
            assert!(text.contains(expected), "{args}: {text}");
        }
        let mcp = help("mcp --help");
        for option in [
            "--caller",
            "--uid",
            "--certificate",
            "--access",
            "--files-dir",
        ] {
            assert!(mcp.contains(option), "{mcp}");
        }
        assert!(mcp.contains("full | limited | unapproved"), "{mcp}");
    }

    #[test]
    fn build_test_and_preview_read_their_options() {
        let Command::Build(build) =
            parse_str("build --release --out b --manifest-path a/Cargo.toml").unwrap()
        else {
            panic!()
        };
        assert!(build.release);
        assert_eq!(build.out, Some(PathBuf::from("b")));
        assert_eq!(build.manifest_path, Some(PathBuf::from("a/Cargo.toml")));
        let Command::Test(test) = parse_str("test --test=ProviderTest").unwrap() else {
            panic!()
        };
        assert_eq!(test.test.as_deref(), Some("ProviderTest"));
        let Command::Preview(preview) = parse_str("preview --out shots").unwrap() else {
            panic!()
        };
        assert_eq!(preview.out, Some(PathBuf::from("shots")));
        let err = parse_str("build --frobnicate 1").unwrap_err().to_string();
        assert!(err.contains("unexpected argument '--frobnicate'"), "{err}");
        let err = parse_str("test extra").unwrap_err().to_string();
        assert!(err.contains("unexpected argument 'extra'"), "{err}");
    }

    #[test]
    fn new_reads_its_sdk_source() {
        let Command::New(new) =
            parse_str("new recipes --sdk-git https://x/y --sdk-rev v1").unwrap()
        else {
            panic!()
        };
        assert_eq!(new.dir, PathBuf::from("recipes"));
        assert_eq!(
            new.sdk,
            SdkSource::Git {
                url: "https://x/y".into(),
                rev: Some("v1".into())
            }
        );
        let Command::New(new) = parse_str("new r --name=recipes --package com.a.b").unwrap() else {
            panic!()
        };
        assert_eq!(
            new.sdk,
            SdkSource::Registry {
                version: env!("CARGO_PKG_VERSION").into()
            }
        );
        assert_eq!(
            (new.name.as_deref(), new.package.as_deref()),
            (Some("recipes"), Some("com.a.b"))
        );
        let Command::New(new) = parse_str("new r --sdk-path ../cetp-rs").unwrap() else {
            panic!()
        };
        assert_eq!(new.sdk, SdkSource::Path(PathBuf::from("../cetp-rs")));
    }

    #[test]
    fn init_and_the_android_module() {
        let Command::Init(init) =
            parse_str("init shelf --android-module :app --crate-dir shelf/native").unwrap()
        else {
            panic!()
        };
        assert_eq!(init.project, PathBuf::from("shelf"));
        assert_eq!(init.android_module, Some(PathBuf::from(":app")));
        assert_eq!(init.crate_dir, Some(PathBuf::from("shelf/native")));
        assert_eq!(
            init.sdk,
            SdkSource::Registry {
                version: env!("CARGO_PKG_VERSION").into()
            }
        );
        assert!(!init.dry_run);
        let Command::Init(here) = parse_str("init").unwrap() else {
            panic!()
        };
        assert_eq!(here.project, PathBuf::from("."));
        let Command::Init(dry) = parse_str("init --dry-run").unwrap() else {
            panic!()
        };
        assert!(dry.dry_run);
        for (args, module) in [
            ("check --android-module app", "app"),
            ("build --android-module=:app", ":app"),
            ("test --android-module :wear", ":wear"),
        ] {
            let found = match parse_str(args).unwrap() {
                Command::Check(o) => o.android_module,
                Command::Build(o) => o.android_module,
                Command::Test(o) => o.android_module,
                other => panic!("{other:?}"),
            };
            assert_eq!(found, Some(PathBuf::from(module)), "{args}");
        }
    }

    #[test]
    fn mistakes_say_what_to_do() {
        for (args, expected) in [
            ("new", "required arguments were not provided:\n  <dir>"),
            ("new a b", "unexpected argument 'b'"),
            ("new a --sdk-path x --sdk-git y", "cannot be used with"),
            ("new a --sdk-rev v", "not provided:\n  --sdk-git <url>"),
            ("init a b", "unexpected argument 'b'"),
            ("init --sdk-rev v", "not provided:\n  --sdk-git <url>"),
            ("check --frob 1", "unexpected argument '--frob'"),
            ("mcp --access root", "use `full`, `limited` or `unapproved`"),
            ("mcp --uid me", "not a UID"),
            ("mcp --certificate abc", "64 hex digits"),
            (
                "mcp --caller",
                "a value is required for '--caller <package>'",
            ),
            (
                "frob",
                "unrecognized subcommand 'frob'; the commands are `new`, `init`",
            ),
        ] {
            let err = parse_str(args).unwrap_err().to_string();
            assert!(err.contains(expected), "{args}: {err}");
        }
    }
}

#[cfg(test)]
mod examples {
    /// The example that documented `parse`.
    #[test]
    fn example_parse() {
        use crate::cli::{self, Access, Command};
        let args = ["mcp", "--access", "limited", "--uid=10200"].map(String::from);
        let Command::Mcp(mcp) = cli::parse(&args).unwrap() else {
            panic!()
        };
        assert_eq!((mcp.access, mcp.uid), (Access::Limited, 10_200));
    }
}
