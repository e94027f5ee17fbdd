//! The one error type of `cargo cetp`: what failed, where, and what to do about it.

use std::fmt;
use std::path::PathBuf;
use std::process::Command;

/// What went wrong, with what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The command line is not understood; the text (clap's) names what is valid and `--help`.
    #[error("{0}")]
    Usage(String),
    /// A file or directory could not be read, written, created or removed.
    #[error("{}: {source}", Subject(*action, path))]
    Io {
        /// What was being done to it (`read`, `create`, `clean`…), when said.
        action: Option<&'static str>,
        /// The file or directory.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// A program the tool runs (cargo, the runner, javac, aapt, aidl, Maven) did not start or
    /// failed.
    #[error("{}", Program { command, problem, hint })]
    Program {
        /// Its command line, shortened when long.
        command: String,
        /// What happened: `failed (exit status: 1)`, `did not start: …`.
        problem: String,
        /// What to install or run, when known (a missing program: the package that has it).
        hint: Option<String>,
    },
    /// The app crate is not usable as it is; the text says what to change.
    #[error("{0}")]
    App(String),
    /// The app's provider did not build, or an error-level check failed.
    #[error("{0}")]
    Failed(String),
    /// A step of building a host bundle or of running its Maven project went wrong other than
    /// by a program's failure (a file the step should have written is missing, the manifest
    /// cannot be merged…); the text names the step and what to do.
    #[error("{0}")]
    Bundle(String),
}

/// The start of [`Error::Io`]'s text: `cannot read <path>`, or the path alone.
struct Subject<'a>(Option<&'static str>, &'a std::path::Path);

impl fmt::Display for Subject<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(action) => write!(f, "cannot {action} {}", self.1.display()),
            None => write!(f, "{}", self.1.display()),
        }
    }
}

/// How [`Error::Program`] reads: the command line and what happened, then the hint.
struct Program<'a> {
    command: &'a str,
    problem: &'a str,
    hint: &'a Option<String>,
}

impl fmt::Display for Program<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.command, self.problem)?;
        match self.hint {
            Some(hint) => write!(f, "\n{hint}"),
            None => Ok(()),
        }
    }
}

impl Error {
    /// For `map_err`: an I/O error on `path`.
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io {
            action: None,
            path,
            source,
        }
    }

    /// For `map_err`: `action` (`read`, `create`, `clean`…) failed on `path`.
    pub(crate) fn cannot(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io {
            action: Some(action),
            path,
            source,
        }
    }

    /// `command` (a program's name or command line) ran into `problem`, without a hint.
    pub(crate) fn program(command: impl Into<String>, problem: impl Into<String>) -> Error {
        Error::Program {
            command: command.into(),
            problem: problem.into(),
            hint: None,
        }
    }

    /// `cmd` exited with `status`.
    pub(crate) fn exited(cmd: &Command, status: std::process::ExitStatus) -> Error {
        Error::program(
            crate::android_build::bundle::tools::describe(cmd),
            format!("failed ({status})"),
        )
    }

    /// `cmd` did not start; for a program that is not there, the hint names the package that
    /// has it ([`crate::android_build::bundle::missing_program`]).
    pub(crate) fn not_started(cmd: &Command, error: &std::io::Error) -> Error {
        let program = cmd.get_program().to_string_lossy();
        let name = std::path::Path::new(program.as_ref())
            .file_name()
            .map_or_else(|| program.to_string(), |n| n.to_string_lossy().into_owned());
        let hint = match error.kind() {
            std::io::ErrorKind::NotFound => crate::android_build::bundle::missing_program(&name),
            _ => None,
        };
        Error::Program {
            command: crate::android_build::bundle::tools::describe(cmd),
            problem: format!("did not start: {error}"),
            hint,
        }
    }
}

/// The result of every command.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, ExitStatus};

    use super::Error;

    #[test]
    fn a_file_error_names_the_action_and_the_path() {
        let not_found = || std::io::Error::from(std::io::ErrorKind::NotFound);
        let read = Error::cannot("read", "/apps/x/Cargo.toml")(not_found()).to_string();
        assert!(
            read.starts_with("cannot read /apps/x/Cargo.toml: "),
            "{read}"
        );
        let plain = Error::io("/apps/x")(not_found()).to_string();
        assert!(plain.starts_with("/apps/x: "), "{plain}");
    }

    #[test]
    fn a_program_error_has_its_command_line_and_what_to_install() {
        // Any program will do; one named like Maven shows what a user would read.
        let program = "mvn";
        let mut mvn = Command::new(program);
        mvn.args(["-B", "test"]);
        let missing = Error::not_started(&mvn, &std::io::Error::from(std::io::ErrorKind::NotFound))
            .to_string();
        assert!(
            missing.starts_with("mvn -B test did not start: "),
            "{missing}"
        );
        assert!(missing.contains("`sudo apt install maven`"), "{missing}");
        let failed = Error::exited(&mvn, ExitStatus::from_raw(1 << 8)).to_string();
        assert_eq!(failed, "mvn -B test failed (exit status: 1)");
    }
}
