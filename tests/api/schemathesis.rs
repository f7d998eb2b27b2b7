//! The OpenAPI document proven against the running service: schemathesis (PyPI, pinned
//! in tests/schemathesis/requirements.txt) generates requests for every operation from
//! the document the binary serves (examples, coverage of each constraint's edges,
//! random fuzzing, and stateful sequences that follow the document's links), sends them
//! with a real key made by `formsd keys create --json`, and checks every reply: no
//! server error, only documented statuses, content types and headers, bodies that match
//! their schema, invalid input refused, deleted objects gone, no access without the key.
//!
//! Which checks run, and why one does not, is in tests/schemathesis/schemathesis.toml.
//!
//! Fixed seed, bounded examples, one worker (schemathesis' coverage phase is not safe
//! with several). Without schemathesis the test says SKIPPED and passes, unless
//! FORMS_REQUIRE_PYTHON_TOOLS=1 (as in CI).

use crate::fixtures::formsd_cli;
use crate::harness::*;
use std::process::Stdio;
use std::time::{Duration, Instant};

const SEED: &str = "20261123";

/// Test cases per operation and phase: the whole run stays within a few minutes on two
/// cores.
const MAX_EXAMPLES: &str = "100";

const RUN_TIMEOUT: Duration = Duration::from_secs(420);

/// The `st` program: beside the python3 that has schemathesis (pip puts it in the
/// interpreter's scripts directory, which need not be on PATH, e.g. under pyenv before a
/// rehash), else on PATH. `None`, or a failed assertion under
/// FORMS_REQUIRE_PYTHON_TOOLS=1, when there is none.
fn schemathesis_program() -> Option<String> {
    let scripts = std::process::Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_path('scripts'))",
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    let candidates = scripts
        .map(|dir| format!("{dir}/st"))
        .into_iter()
        .chain(["st".to_owned()]);
    let found = candidates.into_iter().find(|program| {
        std::process::Command::new(program)
            .arg("--version")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    });
    if found.is_none() {
        assert!(
            std::env::var("FORMS_REQUIRE_PYTHON_TOOLS").as_deref() != Ok("1"),
            "FORMS_REQUIRE_PYTHON_TOOLS=1 but schemathesis is missing \
             (pip install -r tests/schemathesis/requirements.txt)"
        );
        eprintln!(
            "SKIPPED: schemathesis is missing (pip install -r tests/schemathesis/requirements.txt)"
        );
    }
    found
}

#[tokio::test]
async fn schemathesis_finds_no_failure_in_any_operation() {
    let Some(st) = schemathesis_program() else {
        return;
    };
    // The run's few thousand requests stay far below the limit: a 429 is documented, but
    // it would stop the run from reaching the operations' own logic.
    let mut app = TestApp::spawn_with(&["--enterprise-rate-limit", "1000000"]).await;
    let created = formsd_cli(
        &app.db.url,
        &[
            "keys",
            "create",
            "--account",
            "schemathesis",
            "--plan",
            "enterprise",
            "--scopes",
            "read,write,admin",
            "--json",
        ],
    )
    .await;
    let created: serde_json::Value = serde_json::from_str(&created).expect("keys create --json");
    let key = created["key"].as_str().expect("the key");

    // Its example database and reports stay out of the work tree.
    let workdir = tempfile::tempdir().expect("a work directory");
    let started = Instant::now();
    let child = tokio::process::Command::new(&st)
        .args([
            "--config-file",
            &format!(
                "{}/tests/schemathesis/schemathesis.toml",
                env!("CARGO_MANIFEST_DIR")
            ),
            "run",
            &format!("{}/openapi.json", app.http_base),
            "--header",
            &format!("x-api-key: {key}"),
            // Both schemes given: schemathesis would otherwise make up an Authorization
            // header, which the valid x-api-key beside it rightly overrides.
            "--header",
            &format!("Authorization: Bearer {key}"),
            "--seed",
            SEED,
            "--max-examples",
            MAX_EXAMPLES,
            "--workers",
            "1",
            "--request-timeout",
            "10",
        ])
        .current_dir(workdir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("starting schemathesis");
    let output = tokio::time::timeout(RUN_TIMEOUT, child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("schemathesis ran longer than {RUN_TIMEOUT:?}"))
        .expect("waiting for schemathesis");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let errors: Vec<String> = app
        .logs()
        .text()
        .lines()
        .filter(|line| line.contains("ERROR"))
        .map(str::to_owned)
        .collect();
    assert!(
        output.status.success(),
        "schemathesis found failures ({}):\n{stdout}\n{stderr}\nformsd's errors:\n{}",
        output.status,
        errors.join("\n")
    );
    let summary: String = stdout
        .lines()
        .skip_while(|line| !line.contains("SUMMARY"))
        .collect::<Vec<_>>()
        .join("\n");
    let doc = send(app.request(reqwest::Method::GET, "/openapi.json"))
        .await
        .body;
    let operations: usize = doc["paths"]
        .as_object()
        .map(|paths| {
            paths
                .values()
                .filter_map(|item| item.as_object())
                .map(|item| item.len())
                .sum()
        })
        .unwrap_or_default();
    assert!(
        operations > 0 && summary.contains(&format!("Tested: {operations}")),
        "not every one of the {operations} operations was tested:\n{stdout}"
    );
    let logs = app.logs_to_end().await;
    assert!(!logs.contains("internal failure"), "{logs}");
    eprintln!(
        "schemathesis passed in {:.0?}:\n{summary}",
        started.elapsed()
    );
}
