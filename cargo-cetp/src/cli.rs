//! The command line: one `Options` type per command, and the `--help` texts.

use std::path::PathBuf;

use crate::{Error, Result};

/// What to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Print this text (a `--help`, or no command).
    Help(&'static str),
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

/// `cargo cetp build [--manifest-path …] [--release] [--out …]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildOptions {
    /// The app's `Cargo.toml` (default: `./Cargo.toml`).
    pub manifest_path: Option<PathBuf>,
    /// Build the native library with the release profile.
    pub release: bool,
    /// Where the bundle goes (default: `<target>/cetp-host/<dir-name>`).
    pub out: Option<PathBuf>,
    /// The Android app module (`--android-module`: a directory or a Gradle path like `:app`),
    /// when the crate's Gradle build has several.
    pub android_module: Option<PathBuf>,
}

/// `cargo cetp test [--manifest-path …] [--test …]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestOptions {
    /// The app's `Cargo.toml` (default: `./Cargo.toml`).
    pub manifest_path: Option<PathBuf>,
    /// Run only this test class (or Surefire pattern, `Class#method`).
    pub test: Option<String>,
    /// The Android app module (`--android-module`: a directory or a Gradle path like `:app`),
    /// when the crate's Gradle build has several.
    pub android_module: Option<PathBuf>,
}

/// `cargo cetp preview [--manifest-path …] [--out …]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviewOptions {
    /// The app's `Cargo.toml` (default: `./Cargo.toml`).
    pub manifest_path: Option<PathBuf>,
    /// Where the PNGs go (default: `<target>/cetp/preview/<dir-name>`).
    pub out: Option<PathBuf>,
    /// The Android app module (`--android-module`: a directory or a Gradle path like `:app`),
    /// when the crate's Gradle build has several.
    pub android_module: Option<PathBuf>,
}

/// Where a new app's `cetp-provider` comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SdkSource {
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

/// `cargo cetp new <dir> [--name …] [--package …] [--sdk-path … | --sdk-git … [--sdk-rev …]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewOptions {
    /// The directory to create (it may exist if empty).
    pub dir: PathBuf,
    /// The crate name (default: the directory's name).
    pub name: Option<String>,
    /// The Android application id (default `com.example.<name>`).
    pub package: Option<String>,
    /// Where `cetp-provider` comes from (default: the SDK this binary was built from).
    pub sdk: SdkSource,
}

/// `cargo cetp init [<project>] [--android-module …] [--crate-dir …] [--name …] [--sdk-path … |
/// --sdk-git … [--sdk-rev …]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitOptions {
    /// A directory of the Android project (default `.`): its Gradle root is the nearest
    /// directory holding `settings.gradle(.kts)`.
    pub project: PathBuf,
    /// The app module: a directory or a Gradle path (`:app`) [default: the only module applying
    /// the Android application plugin].
    pub android_module: Option<PathBuf>,
    /// Where the Rust crate goes (default `rust/` in the root project).
    pub crate_dir: Option<PathBuf>,
    /// The crate name (default: the project directory's name).
    pub name: Option<String>,
    /// Where `cetp-provider` comes from (default: the SDK this binary was built from).
    pub sdk: SdkSource,
}

/// `cargo cetp check [--manifest-path …] [--package …] [--android-module …] [--lib <path>]…`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckOptions {
    /// The app's `Cargo.toml` (default: `./Cargo.toml`).
    pub manifest_path: Option<PathBuf>,
    /// The application id the provider is built for (default: the Android module's).
    pub package: Option<String>,
    /// Built native libraries to check for 16 KB page alignment, and nothing else.
    pub libs: Vec<PathBuf>,
    /// The Android app module (`--android-module`: a directory or a Gradle path like `:app`),
    /// when the crate's Gradle build has several.
    pub android_module: Option<PathBuf>,
}

/// How much the MCP bridge's caller may see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Approved, full access.
    Full,
    /// Approved, limited access.
    Limited,
    /// Not approved: tool calls answer `AUTH_REQUIRED` under user approval.
    Unapproved,
}

impl Access {
    /// The spelling on the command line and the runner's.
    pub fn as_str(self) -> &'static str {
        match self {
            Access::Full => "full",
            Access::Limited => "limited",
            Access::Unapproved => "unapproved",
        }
    }
}

/// `cargo cetp mcp [--manifest-path …] [--caller …] [--uid …] [--certificate …] [--access …]
/// [--package …] [--files-dir …]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpOptions {
    /// The app's `Cargo.toml` (default: `./Cargo.toml`).
    pub manifest_path: Option<PathBuf>,
    /// The application id the provider is built for (default: the Android module's).
    pub package: Option<String>,
    /// The calling app's package.
    pub caller: String,
    /// The calling app's UID.
    pub uid: u32,
    /// The SHA-256 of the calling app's signing certificate (hex).
    pub certificate: String,
    /// What the caller may see.
    pub access: Access,
    /// The app's files directory (default: a fresh scratch directory, removed afterwards).
    pub files_dir: Option<PathBuf>,
    /// The Android app module (`--android-module`: a directory or a Gradle path like `:app`),
    /// when the crate's Gradle build has several.
    pub android_module: Option<PathBuf>,
}

/// The caller `cargo cetp mcp` plays by default.
pub const DEFAULT_CALLER: &str = "com.example.agent";
/// Its UID.
pub const DEFAULT_UID: u32 = 10_123;
/// Its certificate digest.
pub const DEFAULT_CERTIFICATE: &str =
    "a9e1a9e1a9e1a9e1a9e1a9e1a9e1a9e1a9e1a9e1a9e1a9e1a9e1a9e1a9e1a9e1";

/// `cargo cetp --help`.
pub const HELP: &str = "\
cargo cetp: create, check, try and test CETP tool providers

Usage: cargo cetp <command> [options]

Commands:
  new <dir>   Create an app crate with its Android module, ready to build and test
  init        Add the provider to an Android project that exists: a Rust crate, the template
              module, the app module's dependency and placeholders
  check       Check the app crate here: schemas per LLM API, CETP conformance, parameter
              descriptions, scope wording, the Android module, 16 KB page alignment of
              its Android libraries (or of the ones --lib names)
  mcp         Serve the app's provider as an MCP server over stdio, to call its tools from an
              MCP client (MCP Inspector, a desktop LLM app) as an agent would
  build       Build the app's host bundle: its provider, the Android template and the app's Java
              and resources, to run on this machine's JVM under Robolectric
  test        Run the app's own Java/Kotlin tests (android/src/test/) with Robolectric against
              the host bundle, through the SDK's test kit
  preview     Render the app's consent dialog and Apps with access screen (light, night, Arabic)
              to PNGs, as the phone's owner will see them

Run `cargo cetp <command> --help` for a command's options.
";

/// `cargo cetp new --help`.
pub const NEW_HELP: &str = "\
cargo cetp new: create an app crate with its Android module

Usage: cargo cetp new <dir> [options]

Writes, in <dir> (which must not exist or be empty):
  Cargo.toml                      the Rust crate (cdylib for Android, rlib for tests and tools)
  src/lib.rs                      one example tool, the provider, export_provider!
  tests/provider.rs               host tests through cetp_provider::testing
  android/                        the Android app module: build.gradle.kts (placeholders),
                                  settings.gradle.kts (the SDK's template module),
                                  gradle.properties, src/main/AndroidManifest.xml,
                                  src/test/java/.../ProviderTest.java (its own Robolectric
                                  test, run by `cargo cetp test`)
  README.md                       what is where, and the commands

Options:
  --name <name>         The crate name [default: the directory's name]
  --package <id>        The Android application id [default: com.example.<name>]
  --sdk-path <dir>      Depend on the SDK checkout in <dir> (holding cetp-provider/ and
                        android-template/) [default: the SDK this cargo-cetp was built from]
  --sdk-git <url>       Depend on the SDK's git repository instead
  --sdk-rev <rev>       With --sdk-git: the commit, tag or branch
  -h, --help            This text

Then: cd <dir> && cargo test && cargo cetp check
";

/// `cargo cetp init --help`.
pub const INIT_HELP: &str = "\
cargo cetp init: add the provider to an Android project that exists

Usage: cargo cetp init [<project dir>] [options]

In the Gradle build around <project dir> (default: here; its root holds settings.gradle(.kts)):
  rust/                         the Rust crate, as `cargo cetp new` writes it (Cargo.toml,
                                src/lib.rs, tests/provider.rs), naming the app module under
                                [package.metadata.cetp] so every `cargo cetp` command finds it
  settings.gradle(.kts)         include(\":cetp\"): the SDK's Android template as a module
  gradle.properties             cetp.rustCrate, the crate relative to the root project
  <app>/build.gradle.kts        the placeholders cetpAuthority and cetpLibrary under
                                defaultConfig, implementation(project(\":cetp\"))
  gradle/libs.versions.toml,    the Android library plugin beside the application plugin, at
  build.gradle(.kts)            its version (the template module applies it)
Each step only when it is missing: a second run changes nothing. A file whose shape it cannot
edit with confidence (a Groovy build file, placeholders assigned as a map) is left as it is,
and the lines to add are printed instead. Prints what it changed.

Options:
  --android-module <m>  The app module: its directory or Gradle path (`:app`) [default: the
                        only module applying com.android.application]
  --crate-dir <dir>     Where the Rust crate goes [default: rust/ in the root project]
  --name <name>         The crate name [default: the project directory's name]
  --sdk-path <dir>      Depend on the SDK checkout in <dir> [default: the SDK this cargo-cetp
                        was built from]
  --sdk-git <url>       Depend on the SDK's git repository instead
  --sdk-rev <rev>       With --sdk-git: the commit, tag or branch
  -h, --help            This text

Then: cd rust && cargo test && cargo cetp check
";

/// `cargo cetp check --help`.
pub const CHECK_HELP: &str = "\
cargo cetp check: check an app's CETP provider before shipping it

Usage: cargo cetp check [options]

Builds the app's provider for this machine (a runner crate in target/cetp/, with the app's
Cargo.lock) and reports:
  - each tool's schema against the rules of OpenAI, Anthropic and Gemini (strict modes too);
  - CETP v1 conformance (cetp_provider::testing::check_conformance);
  - CETP v2 conformance (cetp_provider::testing::check_v2_conformance_as), and whether the app
    advertises v2 (the default; `cetp.v2=false` in gradle.properties turns it off): while it
    does, a violation is an error, since ClawSeed's newest client then never falls back to v1;
  - parameters without a description;
  - scope descriptions that read wrongly in \"Open <app> and allow <agent> to read: ...\";
  - the app's texts without a translation to a language the approval screens ship in;
  - the Android module: placeholders, the permission mode, components declared twice;
  - 16 KB pages: every LOAD segment of the app's native libraries built for Android
    (target/<android target>/<profile>/, android/build/, android/src/main/jniLibs/, the
    template's build/rustJniLibs/) aligned to 16 KB, in an ELF of its ABI's class.
Each finding is a warning with its fix. Exits with 1 only for errors: a provider that does not
build, a conformance failure (CETP v2 only while advertised), or a library Android's 16 KB
page devices cannot load.

Options:
  --manifest-path <path>   The app's Cargo.toml [default: ./Cargo.toml]
  --package <id>           The application id to build the provider for [default: the
                           Android module's applicationId or namespace]
  --android-module <m>     The Android app module, when the Gradle build around the crate
                           has several: its directory or Gradle path (`:app`) [default:
                           android/ beside Cargo.toml, else the build's only app module]
  --lib <path>             Only check this built library's 16 KB page alignment (repeat for
                           more; its ABI is taken from its directory, e.g. jniLibs/arm64-v8a/)
  -h, --help               This text
";

/// `cargo cetp mcp --help`.
pub const MCP_HELP: &str = "\
cargo cetp mcp: serve the app's provider as an MCP server over stdio

Usage: cargo cetp mcp [options]

Builds the app's provider for this machine and serves it over MCP on stdin/stdout, so any MCP
client can list and call its tools and see what an agent on the phone gets: descriptions,
schemas, INVALID_ARGS texts, limited answers, AUTH_REQUIRED for an unapproved caller. Every call
is made as one calling app, chosen with the options below; the provider's own authorization
decides what it gets. Logs and build output go to stderr, never stdout. The first run compiles
the provider; run `cargo cetp check` once before pointing a client at this command.

Example client configuration (command and arguments):
  cargo cetp mcp --manifest-path /path/to/app/Cargo.toml --access limited

Options:
  --manifest-path <path>   The app's Cargo.toml [default: ./Cargo.toml]
  --caller <package>       The calling app's package [default: com.example.agent]
  --uid <uid>              The calling app's UID [default: 10123]
  --certificate <sha256>   The SHA-256 of its signing certificate, 64 hex digits
                           [default: a9e1a9e1…]
  --access <access>        full | limited | unapproved: approve the caller with full or limited
                           access, or not at all [default: full]
  --package <id>           The application id to build the provider for [default: the
                           Android module's applicationId or namespace]
  --files-dir <dir>        The app's files directory (data, grants) [default: a scratch
                           directory, removed on exit]
  --android-module <m>     The Android app module, when the Gradle build around the crate
                           has several: its directory or Gradle path (`:app`) [default:
                           android/ beside Cargo.toml, else the build's only app module]
  -h, --help               This text
";

/// `cargo cetp build --help`.
pub const BUILD_HELP: &str = "\
cargo cetp build: build the app's host bundle

Usage: cargo cetp build [options]

Builds, for this machine, what the phone would run, so Robolectric can run it on the JVM:
  lib<name>.so         the app crate as a host cdylib
  resources.ap_        the template's and the app's resources compiled by aapt (Debian's
                       `aapt`; with `aidl` for the template's AIDL), with the binary manifest
  app.jar              the Android template's Java, the app's (android/src/main/java) and the
                       R classes, compiled against android-all (API 34), plus Robolectric's
                       test_config.properties
  AndroidManifest.xml  the app's manifest with the template's merged in, placeholders resolved
The template comes from the SDK checkout the app's cetp-provider dependency resolves to (a path
or git dependency; a registry version ships without it).

Options:
  --manifest-path <path>   The app's Cargo.toml [default: ./Cargo.toml]
  --release                Build the native library with the release profile [default
                           directory: <target>/cetp-host-release/<dir-name>]
  --out <dir>              Where the bundle goes, replacing what is there
                           [default: <target>/cetp-host/<dir-name>]
  --android-module <m>     The Android app module, when the Gradle build around the crate
                           has several: its directory or Gradle path (`:app`) [default:
                           android/ beside Cargo.toml, else the build's only app module]
  -h, --help               This text
";

/// `cargo cetp test --help`.
pub const TEST_HELP: &str = "\
cargo cetp test: run the app's own Robolectric tests against its host bundle

Usage: cargo cetp test [options]

Builds the host bundle (cargo cetp build), installs the SDK's test kit into the local Maven
repository when it is missing or out of date, generates a Maven project under
<target>/cetp/test/<dir-name>/ (nothing is written into the app's sources) and runs, with
Robolectric (SDK 34, offline), the app's tests from:
  android/src/test/java/     Java tests (JUnit 4)
  android/src/test/kotlin/   Kotlin tests, compiled with kotlin-maven-plugin when present
  android/src/test/resources/
Needs JDK 17 and Maven; the first run downloads Robolectric and the Android framework jars from
Maven Central (about 500 MB). Prints a summary and where the reports are.

Options:
  --manifest-path <path>   The app's Cargo.toml [default: ./Cargo.toml]
  --test <pattern>         Run only these tests: a class, Class#method, or a Surefire pattern
  --android-module <m>     The Android app module, when the Gradle build around the crate
                           has several: its directory or Gradle path (`:app`) [default:
                           android/ beside Cargo.toml, else the build's only app module]
  -h, --help               This text
";

/// `cargo cetp preview --help`.
pub const PREVIEW_HELP: &str = "\
cargo cetp preview: render the app's approval screens to PNG files

Usage: cargo cetp preview [options]

Builds the host bundle, then, under Robolectric's native graphics, has a made-up agent app
(\"Example Agent\", com.example.agent) call one of the app's tools, opens the consent dialog it
is sent to and the Apps with access screen after Allow, and renders each in the light theme, the
night theme and right-to-left in Arabic: six PNGs, with the app's own provider name, scopes and
their wording. Prints their paths.

Options:
  --manifest-path <path>   The app's Cargo.toml [default: ./Cargo.toml]
  --out <dir>              Where the PNGs go [default: <target>/cetp/preview/<dir-name>]
  --android-module <m>     The Android app module, when the Gradle build around the crate
                           has several: its directory or Gradle path (`:app`) [default:
                           android/ beside Cargo.toml, else the build's only app module]
  -h, --help               This text
";

/// Parses the arguments after `cargo cetp`.
///
/// ```
/// use cargo_cetp::cli::{self, Access, Command};
/// let args = ["mcp", "--access", "limited", "--uid=10200"].map(String::from);
/// let Command::Mcp(mcp) = cli::parse(&args).unwrap() else { panic!() };
/// assert_eq!((mcp.access, mcp.uid), (Access::Limited, 10_200));
/// ```
///
/// # Errors
/// [`Error::Usage`] naming the problem and the `--help` to read.
pub fn parse(args: &[String]) -> Result<Command> {
    let Some((command, rest)) = args.split_first() else {
        return Ok(Command::Help(HELP));
    };
    match command.as_str() {
        "-h" | "--help" | "help" => Ok(Command::Help(HELP)),
        "new" => parse_new(rest),
        "init" => parse_init(rest),
        "check" => parse_check(rest),
        "mcp" => parse_mcp(rest),
        "build" => parse_build(rest),
        "test" => parse_test(rest),
        "preview" => parse_preview(rest),
        other => Err(Error::Usage(format!(
            "unknown command `{other}`; the commands are `new`, `init`, `check`, `mcp`, `build`, \
             `test` and `preview` (see `cargo cetp --help`)"
        ))),
    }
}

/// The options of one command, read as `--flag value` or `--flag=value`.
struct Flags<'a> {
    command: &'static str,
    args: std::slice::Iter<'a, String>,
    positional: Vec<String>,
}

enum Item {
    Help,
    Flag(String, String),
}

impl<'a> Flags<'a> {
    fn new(command: &'static str, args: &'a [String]) -> Self {
        Flags {
            command,
            args: args.iter(),
            positional: Vec::new(),
        }
    }

    /// The next flag with its value, collecting positional arguments on the way.
    fn next(&mut self) -> Result<Option<Item>> {
        while let Some(arg) = self.args.next() {
            if arg == "-h" || arg == "--help" {
                return Ok(Some(Item::Help));
            }
            let Some(flag) = arg.strip_prefix("--") else {
                self.positional.push(arg.clone());
                continue;
            };
            let (name, value) = match flag.split_once('=') {
                Some((name, value)) => (name.to_owned(), value.to_owned()),
                None => {
                    let value = self
                        .args
                        .next()
                        .ok_or_else(|| self.usage(format!("`--{flag}` needs a value")))?;
                    (flag.to_owned(), value.clone())
                }
            };
            return Ok(Some(Item::Flag(name, value)));
        }
        Ok(None)
    }

    fn usage(&self, problem: String) -> Error {
        Error::Usage(format!(
            "{problem} (see `cargo cetp {} --help`)",
            self.command
        ))
    }

    fn unknown(&self, flag: &str) -> Error {
        self.usage(format!(
            "`cargo cetp {}` has no option `--{flag}`",
            self.command
        ))
    }
}

fn parse_new(args: &[String]) -> Result<Command> {
    let mut flags = Flags::new("new", args);
    let (mut name, mut package, mut sdk_path, mut sdk_git, mut sdk_rev) =
        (None, None, None, None, None);
    while let Some(item) = flags.next()? {
        let Item::Flag(flag, value) = item else {
            return Ok(Command::Help(NEW_HELP));
        };
        match flag.as_str() {
            "name" => name = Some(value),
            "package" => package = Some(value),
            "sdk-path" => sdk_path = Some(PathBuf::from(value)),
            "sdk-git" => sdk_git = Some(value),
            "sdk-rev" => sdk_rev = Some(value),
            other => return Err(flags.unknown(other)),
        }
    }
    let dir = match flags.positional.as_slice() {
        [dir] => PathBuf::from(dir),
        [] => {
            return Err(
                flags.usage("name the directory to create: `cargo cetp new recipes`".into())
            );
        }
        more => {
            return Err(flags.usage(format!("one directory, please (got {})", more.join(", "))));
        }
    };
    let sdk = sdk_source(&flags, sdk_path, sdk_git, sdk_rev)?;
    Ok(Command::New(NewOptions {
        dir,
        name,
        package,
        sdk,
    }))
}

fn sdk_source(
    flags: &Flags<'_>,
    sdk_path: Option<PathBuf>,
    sdk_git: Option<String>,
    sdk_rev: Option<String>,
) -> Result<SdkSource> {
    match (sdk_path, sdk_git, sdk_rev) {
        (Some(_), Some(_), _) => {
            Err(flags.usage("`--sdk-path` and `--sdk-git` exclude each other".into()))
        }
        (Some(_), None, Some(_)) | (None, None, Some(_)) => {
            Err(flags.usage("`--sdk-rev` goes with `--sdk-git`".into()))
        }
        (Some(path), None, None) => Ok(SdkSource::Path(path)),
        (None, Some(url), rev) => Ok(SdkSource::Git { url, rev }),
        (None, None, None) => Ok(SdkSource::Path(crate::sdk_dir())),
    }
}

fn parse_init(args: &[String]) -> Result<Command> {
    let mut flags = Flags::new("init", args);
    let (mut android_module, mut crate_dir, mut name, mut sdk_path, mut sdk_git, mut sdk_rev) =
        (None, None, None, None, None, None);
    while let Some(item) = flags.next()? {
        let Item::Flag(flag, value) = item else {
            return Ok(Command::Help(INIT_HELP));
        };
        match flag.as_str() {
            "android-module" => android_module = Some(PathBuf::from(value)),
            "crate-dir" => crate_dir = Some(PathBuf::from(value)),
            "name" => name = Some(value),
            "sdk-path" => sdk_path = Some(PathBuf::from(value)),
            "sdk-git" => sdk_git = Some(value),
            "sdk-rev" => sdk_rev = Some(value),
            other => return Err(flags.unknown(other)),
        }
    }
    let project = match flags.positional.as_slice() {
        [] => PathBuf::from("."),
        [dir] => PathBuf::from(dir),
        more => {
            return Err(flags.usage(format!(
                "one project directory, please (got {})",
                more.join(", ")
            )));
        }
    };
    let sdk = sdk_source(&flags, sdk_path, sdk_git, sdk_rev)?;
    Ok(Command::Init(InitOptions {
        project,
        android_module,
        crate_dir,
        name,
        sdk,
    }))
}

fn parse_check(args: &[String]) -> Result<Command> {
    let mut flags = Flags::new("check", args);
    let mut options = CheckOptions {
        android_module: None,
        manifest_path: None,
        package: None,
        libs: Vec::new(),
    };
    while let Some(item) = flags.next()? {
        let Item::Flag(flag, value) = item else {
            return Ok(Command::Help(CHECK_HELP));
        };
        match flag.as_str() {
            "manifest-path" => options.manifest_path = Some(PathBuf::from(value)),
            "android-module" => options.android_module = Some(PathBuf::from(value)),
            "package" => options.package = Some(value),
            "lib" => options.libs.push(PathBuf::from(value)),
            other => return Err(flags.unknown(other)),
        }
    }
    no_positional(&flags)?;
    Ok(Command::Check(options))
}

fn parse_build(args: &[String]) -> Result<Command> {
    // `--release` takes no value: handled before the flag reader.
    let release = args.iter().any(|a| a == "--release");
    let rest: Vec<String> = args.iter().filter(|a| *a != "--release").cloned().collect();
    let mut flags = Flags::new("build", &rest);
    let mut options = BuildOptions {
        android_module: None,
        manifest_path: None,
        release,
        out: None,
    };
    while let Some(item) = flags.next()? {
        let Item::Flag(flag, value) = item else {
            return Ok(Command::Help(BUILD_HELP));
        };
        match flag.as_str() {
            "manifest-path" => options.manifest_path = Some(PathBuf::from(value)),
            "android-module" => options.android_module = Some(PathBuf::from(value)),
            "out" => options.out = Some(PathBuf::from(value)),
            other => return Err(flags.unknown(other)),
        }
    }
    no_positional(&flags)?;
    Ok(Command::Build(options))
}

fn parse_test(args: &[String]) -> Result<Command> {
    let mut flags = Flags::new("test", args);
    let mut options = TestOptions {
        android_module: None,
        manifest_path: None,
        test: None,
    };
    while let Some(item) = flags.next()? {
        let Item::Flag(flag, value) = item else {
            return Ok(Command::Help(TEST_HELP));
        };
        match flag.as_str() {
            "manifest-path" => options.manifest_path = Some(PathBuf::from(value)),
            "android-module" => options.android_module = Some(PathBuf::from(value)),
            "test" => options.test = Some(value),
            other => return Err(flags.unknown(other)),
        }
    }
    no_positional(&flags)?;
    Ok(Command::Test(options))
}

fn parse_preview(args: &[String]) -> Result<Command> {
    let mut flags = Flags::new("preview", args);
    let mut options = PreviewOptions {
        android_module: None,
        manifest_path: None,
        out: None,
    };
    while let Some(item) = flags.next()? {
        let Item::Flag(flag, value) = item else {
            return Ok(Command::Help(PREVIEW_HELP));
        };
        match flag.as_str() {
            "manifest-path" => options.manifest_path = Some(PathBuf::from(value)),
            "android-module" => options.android_module = Some(PathBuf::from(value)),
            "out" => options.out = Some(PathBuf::from(value)),
            other => return Err(flags.unknown(other)),
        }
    }
    no_positional(&flags)?;
    Ok(Command::Preview(options))
}

fn parse_mcp(args: &[String]) -> Result<Command> {
    let mut flags = Flags::new("mcp", args);
    let mut options = McpOptions {
        android_module: None,
        manifest_path: None,
        package: None,
        caller: DEFAULT_CALLER.to_owned(),
        uid: DEFAULT_UID,
        certificate: DEFAULT_CERTIFICATE.to_owned(),
        access: Access::Full,
        files_dir: None,
    };
    while let Some(item) = flags.next()? {
        let Item::Flag(flag, value) = item else {
            return Ok(Command::Help(MCP_HELP));
        };
        match flag.as_str() {
            "manifest-path" => options.manifest_path = Some(PathBuf::from(value)),
            "android-module" => options.android_module = Some(PathBuf::from(value)),
            "package" => options.package = Some(value),
            "caller" => options.caller = value,
            "uid" => {
                options.uid = value.parse().map_err(|_| {
                    flags.usage(format!(
                        "`--uid {value}` is not a UID (a number like 10123)"
                    ))
                })?;
            }
            "certificate" => {
                if value.len() != 64 || !value.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(flags.usage(format!(
                        "`--certificate {value}` is not a SHA-256 digest: give 64 hex digits"
                    )));
                }
                options.certificate = value.to_ascii_lowercase();
            }
            "access" => {
                options.access = match value.as_str() {
                    "full" => Access::Full,
                    "limited" => Access::Limited,
                    "unapproved" => Access::Unapproved,
                    other => {
                        return Err(flags.usage(format!(
                            "`--access {other}`: use `full`, `limited` or `unapproved`"
                        )));
                    }
                };
            }
            "files-dir" => options.files_dir = Some(PathBuf::from(value)),
            other => return Err(flags.unknown(other)),
        }
    }
    no_positional(&flags)?;
    Ok(Command::Mcp(options))
}

fn no_positional(flags: &Flags<'_>) -> Result<()> {
    match flags.positional.first() {
        None => Ok(()),
        Some(extra) => Err(flags.usage(format!("unexpected argument `{extra}`"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(args: &str) -> Result<Command> {
        let args: Vec<String> = args.split_whitespace().map(String::from).collect();
        parse(&args)
    }

    #[test]
    fn every_command_has_help() {
        assert_eq!(parse_str("").unwrap(), Command::Help(HELP));
        assert_eq!(parse_str("new --help").unwrap(), Command::Help(NEW_HELP));
        assert_eq!(parse_str("init --help").unwrap(), Command::Help(INIT_HELP));
        assert_eq!(parse_str("check -h").unwrap(), Command::Help(CHECK_HELP));
        assert_eq!(parse_str("mcp --help").unwrap(), Command::Help(MCP_HELP));
        assert_eq!(
            parse_str("build --help").unwrap(),
            Command::Help(BUILD_HELP)
        );
        assert_eq!(parse_str("test -h").unwrap(), Command::Help(TEST_HELP));
        assert_eq!(
            parse_str("preview --help").unwrap(),
            Command::Help(PREVIEW_HELP)
        );
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
        assert!(
            err.contains("`cargo cetp build` has no option `--frobnicate`"),
            "{err}"
        );
        let err = parse_str("test extra").unwrap_err().to_string();
        assert!(err.contains("unexpected argument `extra`"), "{err}");
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
        assert_eq!(new.sdk, SdkSource::Path(crate::sdk_dir()));
        assert_eq!(
            (new.name.as_deref(), new.package.as_deref()),
            (Some("recipes"), Some("com.a.b"))
        );
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
        assert_eq!(init.sdk, SdkSource::Path(crate::sdk_dir()));
        let Command::Init(here) = parse_str("init").unwrap() else {
            panic!()
        };
        assert_eq!(here.project, PathBuf::from("."));
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
            ("new", "name the directory to create"),
            ("new a b", "one directory"),
            ("new a --sdk-path x --sdk-git y", "exclude each other"),
            ("new a --sdk-rev v", "goes with `--sdk-git`"),
            ("init a b", "one project directory"),
            ("init --sdk-rev v", "goes with `--sdk-git`"),
            ("check --frob 1", "has no option `--frob`"),
            ("mcp --access root", "use `full`, `limited` or `unapproved`"),
            ("mcp --uid me", "not a UID"),
            ("mcp --certificate abc", "64 hex digits"),
            ("mcp --caller", "`--caller` needs a value"),
            ("frob", "unknown command `frob`"),
        ] {
            let err = parse_str(args).unwrap_err().to_string();
            assert!(err.contains(expected), "{args}: {err}");
        }
    }
}
