//! An app made by `cargo cetp new` in a directory outside the workspace, used as its developer
//! would: `cargo test` there, `cargo cetp check`, scripted MCP sessions against `cargo cetp mcp`
//! as a child process over stdio, answers checked field by field; then the Android side:
//! `cargo cetp build` (the host bundle), `cargo cetp test` (the app's own Java test, through the
//! test kit, under Robolectric) and `cargo cetp preview` (the consent screens as PNGs).
//!
//! Minutes of compiling, so plain `cargo test` leaves it out (`test = false`); `cargo xtask
//! test` runs it with `cargo test -p cargo-cetp --test new_app`. The app builds into this
//! workspace's target directory with this workspace's `Cargo.lock`, so the SDK's dependencies
//! are compiled once for both (`CETP_NEW_APP_TARGET_DIR` chooses another directory), and Maven
//! uses the local repository the SDK's own suite fills (the one Maven's configuration names, or
//! `CETP_M2_REPO`).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use serde_json::{Value, json};

mod common;

use common::{assert_previewed, cargo_cetp, run, target_dir, workspace};

/// One MCP session with `cargo cetp mcp`, line-delimited JSON-RPC over the child's stdio.
struct Session {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Session {
    fn start(manifest: &Path, extra: &[&str]) -> Self {
        let mut args = vec!["mcp", "--manifest-path", manifest.to_str().unwrap()];
        args.extend_from_slice(extra);
        let mut child = cargo_cetp(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("cargo cetp mcp starts");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        Session {
            child,
            input,
            output,
        }
    }

    fn send(&mut self, message: Value) {
        writeln!(self.input, "{message}").unwrap();
        self.input.flush().unwrap();
    }

    /// Sends a request and returns its answer (the next line on stdout, which carries nothing
    /// but MCP messages).
    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut line = String::new();
        self.output.read_line(&mut line).unwrap();
        let answer: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("not a JSON-RPC line ({e}): {line:?}"));
        assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    fn initialize(&mut self) -> Value {
        let init = self.request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "new-app-test", "version": "1"}}),
        );
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        init
    }

    fn call(&mut self, id: u64, arguments: Value) -> Value {
        let answer = self.request(
            id,
            "tools/call",
            json!({"name": "find_items", "arguments": arguments}),
        );
        answer["result"].clone()
    }

    /// Closes stdin, as a client that is done does, and waits for the server to exit.
    fn finish(mut self) {
        drop(self.input);
        let status = self.child.wait().unwrap();
        assert!(status.success(), "cargo cetp mcp exited with {status}");
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut self.output, &mut rest).unwrap();
        assert_eq!(rest, "", "nothing but MCP answers on stdout");
    }
}

/// The local repository Maven reports using (`mvn -X`) for a project in `dir`, run offline with
/// the environment `vars` (the process's PATH and JAVA_HOME, nothing else of Maven's).
fn maven_says(dir: &Path, vars: &[(&str, String)]) -> PathBuf {
    let mut mvn = Command::new("mvn");
    mvn.args(cargo_cetp::android_build::bundle::maven::PLAIN_OUTPUT)
        .args(["-X", "-o", "validate", "-f"])
        .arg(dir.join("pom.xml"))
        .current_dir(dir);
    for name in ["MAVEN_OPTS", "MAVEN_ARGS", "MAVEN_HOME", "CETP_M2_REPO"] {
        mvn.env_remove(name);
    }
    mvn.envs(vars.iter().map(|(k, v)| (k, v)));
    let out = run(&mut mvn);
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("[DEBUG] Using local repository at "))
        .unwrap_or_else(|| panic!("mvn -X names no local repository:\n{out}"));
    PathBuf::from(line.trim())
}

/// `cargo cetp` looks for the local repository where Maven itself puts it: a repository named in
/// `MAVEN_OPTS`, in the user settings (interpolated), and in the project's `.mvn/maven.config`
/// over `MAVEN_OPTS`, each checked against what Maven reports (offline, a second a run: an
/// empty project needs nothing from any repository).
#[test]
fn the_local_repository_is_where_maven_says() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("pom.xml"),
        "<project xmlns=\"http://maven.apache.org/POM/4.0.0\"><modelVersion>4.0.0</modelVersion>\
         <groupId>probe</groupId><artifactId>probe</artifactId><version>1</version>\
         <packaging>pom</packaging></project>\n",
    )
    .unwrap();
    // Maven's home is the JVM's user.home (the password file's, not HOME): moved here for both.
    let user_home = format!("-Duser.home={}", home.path().display());
    let opts_repo = home.path().join("from-opts");
    let scenarios: [(&str, Vec<(&str, String)>); 3] = [
        (
            "MAVEN_OPTS",
            vec![(
                "MAVEN_OPTS",
                format!("{user_home} -Dmaven.repo.local={}", opts_repo.display()),
            )],
        ),
        (
            "user settings",
            vec![
                ("MAVEN_OPTS", user_home.clone()),
                ("CETP_PROBE", "probe".to_owned()),
            ],
        ),
        (
            ".mvn/maven.config",
            vec![(
                "MAVEN_OPTS",
                format!("{user_home} -Dmaven.repo.local={}", opts_repo.display()),
            )],
        ),
    ];
    for (what, vars) in scenarios {
        match what {
            "user settings" => {
                std::fs::create_dir_all(home.path().join(".m2")).unwrap();
                std::fs::write(
                    home.path().join(".m2/settings.xml"),
                    "<settings><localRepository>${user.home}/m2-${env.CETP_PROBE}</localRepository></settings>\n",
                )
                .unwrap();
            }
            ".mvn/maven.config" => {
                std::fs::create_dir_all(project.join(".mvn")).unwrap();
                std::fs::write(
                    project.join(".mvn/maven.config"),
                    format!(
                        "-Dmaven.repo.local={}\n",
                        home.path().join("from-config").display()
                    ),
                )
                .unwrap();
            }
            _ => {}
        }
        let var = |name: &str| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.into())
                .or_else(|| match name {
                    "PATH" | "HOME" => std::env::var_os(name),
                    _ => None,
                })
        };
        let (ours, _) =
            cargo_cetp::android_build::bundle::local_repository(&var, Some(&project)).unwrap();
        assert_eq!(ours, maven_says(&project, &vars), "{what}");
    }
}

#[test]
fn a_new_app_tests_checks_serves_mcp_and_runs_on_the_jvm() {
    let scratch = tempfile::tempdir().unwrap();
    assert!(
        !scratch
            .path()
            .starts_with(workspace().canonicalize().unwrap()),
        "the app must live outside the workspace"
    );
    let app = scratch.path().join("recipes");
    run(&mut cargo_cetp(&["new", app.to_str().unwrap()]));
    // The same versions as the SDK's own build, so its compiled dependencies are reused.
    std::fs::copy(workspace().join("Cargo.lock"), app.join("Cargo.lock")).unwrap();
    let manifest = app.join("Cargo.toml");

    // The app's own tests pass out of the box.
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let tests = run(Command::new(&cargo)
        .arg("test")
        .current_dir(&app)
        .env("CARGO_TARGET_DIR", target_dir()));
    assert!(tests.contains("test result: ok. 5 passed"), "{tests}");
    assert!(
        tests.contains("the_provider_is_cetp_v2_conformant ... ok"),
        "{tests}"
    );

    // `check`: the table, conformance, the Android module, and nothing to fix.
    let checked = run(&mut cargo_cetp(&[
        "check",
        "--manifest-path",
        manifest.to_str().unwrap(),
    ]));
    assert!(
        checked.contains("`recipes`, provider \"Recipes\" for com.example.recipes, 1 tool(s)"),
        "{checked}"
    );
    assert!(
        checked.contains("| `find_items` | ok | no: maxLength, minLength, required | ok |"),
        "{checked}"
    );
    assert!(checked.contains("CETP v1 conformance: ok"), "{checked}");
    assert!(checked.contains("authority agents call: com.example.recipes.tools"));
    assert!(checked.contains("0 error(s), 0 warning(s)"), "{checked}");

    // An approved agent (the default caller, full access).
    let mut mcp = Session::start(&manifest, &[]);
    let init = mcp.initialize();
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(init["result"]["serverInfo"]["name"], "Recipes");
    assert_eq!(
        init["result"]["instructions"],
        "The items you keep in Recipes"
    );
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );

    let list = mcp.request(2, "tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 1);
    let tool = &tools[0];
    assert_eq!(tool["name"], "find_items");
    assert_eq!(tool["title"], "Find items");
    assert!(
        tool["description"]
            .as_str()
            .unwrap()
            .starts_with("Finds the user's items whose title contains the given words."),
        "{tool}"
    );
    assert_eq!(tool["inputSchema"]["required"], json!(["words"]));
    assert_eq!(tool["inputSchema"]["additionalProperties"], false);
    assert_eq!(
        tool["inputSchema"]["properties"]["words"]["description"],
        "Words the title must contain, e.g. `soup`. 1 to 100 characters."
    );
    assert_eq!(tool["inputSchema"]["properties"]["limit"]["maximum"], 50);
    assert_eq!(tool["annotations"]["readOnlyHint"], true);
    assert_eq!(tool["annotations"]["destructiveHint"], false);
    assert_eq!(tool["outputSchema"]["type"], "object");
    assert_eq!(tool["outputSchema"]["required"], json!(["result"]));
    assert_eq!(
        tool["outputSchema"]["properties"]["result"]["items"]["required"],
        json!(["id", "title"])
    );

    let found = mcp.call(3, json!({"words": "soup"}));
    assert_eq!(found["isError"], false);
    assert_eq!(
        found["structuredContent"],
        json!({"result": [{"id": 1, "title": "Tomato soup"}]})
    );
    assert_eq!(found["content"][0]["type"], "text");
    assert_eq!(
        found["content"][0]["text"],
        r#"[{"id":1,"title":"Tomato soup"}]"#
    );

    let wrong = mcp.call(4, json!({"words": "soup", "limit": 500}));
    assert_eq!(wrong["isError"], true);
    assert!(wrong.get("structuredContent").is_none(), "{wrong}");
    assert_eq!(
        wrong["content"][0]["text"],
        "INVALID_ARGS: invalid arguments for `find_items`: at `/limit`: 500 is greater than the \
         maximum of 50. Expected {words: string (required), limit: integer}."
    );
    mcp.finish();

    // An agent the user has not approved gets what an agent on the phone gets.
    let mut stranger = Session::start(
        &manifest,
        &["--access", "unapproved", "--caller", "com.example.stranger"],
    );
    stranger.initialize();
    let refused = stranger.call(2, json!({"words": "soup"}));
    assert_eq!(refused["isError"], true);
    let text = refused["content"][0]["text"].as_str().unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with(
            "AUTH_REQUIRED: the user has not yet allowed com.example.stranger to read scope `items.read` from Recipes"
        ),
        "{text}"
    );
    assert_eq!(
        lines[1],
        "Hint: Open Recipes (com.example.recipes) and allow com.example.stranger to read: your saved items"
    );
    assert_eq!(
        lines[2],
        "Authorize intent: com.example.recipes.CETP_AUTHORIZE"
    );
    stranger.finish();

    android_side(&manifest);

    // What check says once the declaration reads wrongly: warnings with fixes, still exit 0.
    let lib = app.join("src/lib.rs");
    let source = std::fs::read_to_string(&lib).unwrap();
    let changed = source
        .replace("\"your saved items\"", "\"Read your saved items\"")
        .replace(
            "    /// How many items to return at most (default 10).\n",
            "",
        );
    assert_ne!(changed, source);
    std::fs::write(&lib, changed).unwrap();
    let checked = run(&mut cargo_cetp(&[
        "check",
        "--manifest-path",
        manifest.to_str().unwrap(),
    ]));
    assert!(
        checked.contains(
            "warning: parameter `limit` of tool `find_items` has no description, so the model has only its name and type to go on"
        ),
        "{checked}"
    );
    assert!(
        checked.contains(
            "warning: scope `items.read`: it starts with the verb \"Read\" (\"Open Recipes (com.example.recipes) and allow <agent> to read: Read your saved items\")"
        ),
        "{checked}"
    );
    assert!(
        checked.contains(r#"fix: name the data, in lower case, without a verb: `.scope("items.read", "your saved items")`"#),
        "{checked}"
    );
    assert!(checked.contains("0 error(s), 2 warning(s)"), "{checked}");

    // The app's own build in between (without the runner's features) changes nothing for
    // `check`: the two never share a library file.
    run(Command::new(&cargo)
        .args(["test", "--no-run"])
        .current_dir(&app)
        .env("CARGO_TARGET_DIR", target_dir()));
    let again = run(&mut cargo_cetp(&[
        "check",
        "--manifest-path",
        manifest.to_str().unwrap(),
    ]));
    assert!(again.contains("0 error(s), 2 warning(s)"), "{again}");
}

/// `cargo cetp build`, `test` and `preview` on the new app, each timed (printed with
/// `--nocapture`).
fn android_side(manifest: &Path) {
    let manifest = manifest.to_str().unwrap();
    let started = Instant::now();
    let built = run(&mut cargo_cetp(&["build", "--manifest-path", manifest]));
    assert_eq!(built, "", "build reports on stderr only");
    let bundle = target_dir().join("cetp-host/recipes");
    for file in [
        "app.jar",
        "librecipes.so",
        "resources.ap_",
        "AndroidManifest.xml",
    ] {
        assert!(
            bundle.join(file).is_file(),
            "no {file} in {}",
            bundle.display()
        );
    }
    eprintln!("cargo cetp build: {:.1} s", started.elapsed().as_secs_f64());

    // The example test `cargo cetp new` wrote, through the test kit.
    let started = Instant::now();
    let tested = run(&mut cargo_cetp(&["test", "--manifest-path", manifest]));
    for line in [
        "  ok      ProviderTest.anApprovedAgentGetsModelReadableErrors\n",
        "  ok      ProviderTest.cetpV2AgentsAcceptTheProvider\n",
        "  ok      ProviderTest.theUserAllowsAnAgentOnTheConsentDialog\n",
        "3 passed, 0 failed, 0 skipped\n",
    ] {
        assert!(tested.contains(line), "no {line:?} in:\n{tested}");
    }
    assert!(tested.contains("reports: "), "{tested}");
    let one = run(&mut cargo_cetp(&[
        "test",
        "--manifest-path",
        manifest,
        "--test",
        "ProviderTest#anApprovedAgentGetsModelReadableErrors",
    ]));
    assert!(one.contains("1 passed, 0 failed, 0 skipped\n"), "{one}");
    eprintln!(
        "cargo cetp test (twice): {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let started = Instant::now();
    assert_previewed(manifest);
    eprintln!(
        "cargo cetp preview: {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
